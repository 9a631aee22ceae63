# docs/compliance.md is the matrix a test lab reads: each requirement, what
# the controller does, and the tests that prove it. A test it names that does
# not exist (renamed, moved, never written) would be a false proof, so every
# `tests/...py::name` it names is looked up here in the file's syntax tree
# (no collection of the suite: a parse of each named file), and every row
# names a test or says it is open.
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MATRIX = ROOT / "docs" / "compliance.md"
NAMED = re.compile(r"`(tests/[\w/.-]+\.py)::([\w:]+)(?:\[[^`\]]*\])?`")
SETTLED = re.compile(r"\bopen:|\bnot applicable\b")  # a row without a test says which
BLOCKS = (ast.If, ast.Try, ast.With)  # a test defined under `if micropython:` is still defined


def named_tests(markdown):
    return NAMED.findall(markdown)


def _defined_in(body):
    # The names a module (or class) body defines: functions and classes, also
    # under if/try/with, never those nested in a function.
    names = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, BLOCKS):
            inner = list(node.body) + list(getattr(node, "orelse", []))
            inner += list(getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                inner += handler.body
            names.update(_defined_in(inner))
    return names


def missing_tests(markdown, root=ROOT):
    missing, trees = [], {}
    for path, name in named_tests(markdown):
        said = "%s::%s" % (path, name)
        file = root / path
        if not file.is_file():
            missing.append("%s: no such file" % said)
            continue
        if path not in trees:
            trees[path] = _defined_in(ast.parse(file.read_text(), filename=path).body)
        names, node = trees[path], None
        for part in name.split("::"):
            node = names.get(part)
            if node is None:
                break
            names = _defined_in(node.body) if isinstance(node, ast.ClassDef) else {}
        if node is None or isinstance(node, ast.ClassDef) or not node.name.startswith("test"):
            missing.append("%s: no such test" % said)
    return missing


def matrix_rows(markdown):
    # The rows of every table whose header's last cell is "Tests".
    rows, in_matrix = [], False
    for line in markdown.splitlines():
        if not line.startswith("|"):
            in_matrix = False
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[-1] == "Tests":
            in_matrix = True
        elif in_matrix and not set(cells[0]) <= set("-: "):
            rows.append(cells)
    return rows


def unproven_rows(markdown):
    # The rows that name no test and say neither `open:` nor `not applicable`.
    return [row[0] for row in matrix_rows(markdown)
            if not NAMED.search(row[-1]) and not SETTLED.search(row[-1])]


def test_every_test_the_matrix_names_exists():
    assert missing_tests(MATRIX.read_text()) == []


def test_the_matrix_names_tests_of_each_suite():
    # A pattern that matched nothing would pass the test above.
    suites = {path.split("/")[1] for path, _ in named_tests(MATRIX.read_text())}
    assert {"logic", "host", "floor"} <= suites
    assert len(named_tests(MATRIX.read_text())) >= 60


def test_every_row_names_a_test_or_says_it_is_open():
    assert len(matrix_rows(MATRIX.read_text())) >= 30
    assert unproven_rows(MATRIX.read_text()) == []


def test_the_gli_standards_are_not_given_sections_that_were_not_found():
    text = MATRIX.read_text()
    for standard in ("GLI-11", "GLI-12", "GLI-13"):
        lines = [line for line in text.splitlines() if standard in line]
        assert lines and all("section not found" in line for line in lines), standard


def test_a_missing_test_file_function_or_method_is_caught(tmp_path):
    (tmp_path / "tests" / "logic").mkdir(parents=True)
    (tmp_path / "tests" / "logic" / "test_x.py").write_text(
        "import sys\n"
        "def test_here():\n    def test_nested():\n        pass\n"
        "if sys.implementation.name == 'micropython':\n    def test_under_if():\n        pass\n"
        "class TestThing:\n    def test_method(self):\n        pass\n"
        "def helper():\n    pass\n")
    text = ("| Standard | Tests |\n|---|---|\n"
            "| a | `tests/logic/test_x.py::test_here`, `tests/logic/test_x.py::test_under_if` |\n"
            "| b | `tests/logic/test_x.py::TestThing::test_method`, "
            "`tests/logic/test_x.py::test_here[pico]` |\n"
            "| c | `tests/logic/test_x.py::test_gone`, `tests/logic/test_y.py::test_here` |\n"
            "| d | `tests/logic/test_x.py::test_nested`, `tests/logic/test_x.py::helper` |\n"
            "| e | `tests/logic/test_x.py::TestThing`, "
            "`tests/logic/test_x.py::TestThing::test_other` |\n")
    assert missing_tests(text, tmp_path) == [
        "tests/logic/test_x.py::test_gone: no such test",
        "tests/logic/test_y.py::test_here: no such file",
        "tests/logic/test_x.py::test_nested: no such test",
        "tests/logic/test_x.py::helper: no such test",
        "tests/logic/test_x.py::TestThing: no such test",
        "tests/logic/test_x.py::TestThing::test_other: no such test"]


def test_a_row_with_no_test_that_is_neither_open_nor_inapplicable_is_found():
    text = ("| Standard | Does | Tests |\n|---|---|---|\n"
            "| x 1 | it | `tests/logic/test_x.py::test_here` |\n"
            "| x 2 | not yet | open: issue 38 item 1 |\n"
            "| x 3 | elsewhere | not applicable |\n"
            "| x 4 | a door opened | none |\n\n| other | table |\n|---|---|\n| y | z |\n")
    assert [row[0] for row in matrix_rows(text)] == ["x 1", "x 2", "x 3", "x 4"]
    assert unproven_rows(text) == ["x 4"]
