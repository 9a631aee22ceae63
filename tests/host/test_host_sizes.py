# The host keeps the firmware's house rules (docs/development.md): a module
# under 450 lines, a function no longer than 60. Read from the source.
import ast
from pathlib import Path

HOST = Path(__file__).resolve().parents[2] / "host_tools" / "uthctl"
MODULE_MOST, FUNCTION_MOST = 450, 60


def _modules():
    found = sorted(HOST.rglob("*.py"))
    assert len(found) > 150  # the host's modules were found
    return found


def test_every_host_module_keeps_under_450_lines():
    long = {path.relative_to(HOST).as_posix(): n for path in _modules()
            if (n := len(path.read_text().splitlines())) > MODULE_MOST}
    assert long == {}


def test_no_host_function_passes_60_lines():
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > FUNCTION_MOST:
                    long["%s:%s" % (path.relative_to(HOST).as_posix(), node.name)] = lines
    assert long == {}
