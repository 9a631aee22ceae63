# No import cycle in the host tools, the firmware or the benchmarks: a module
# that imports one that imports it back (at the top or inside a function)
# works only by the order things happen to load in, and reads as two jobs
# tangled. The imports are read from the source with ast, not by importing.
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Where each top-level package's modules lie.
PACKAGES = {"uthctl": ROOT / "host_tools" / "uthctl", "uth": ROOT / "firmware" / "uth",
            "mystery": ROOT / "firmware" / "mystery", "table": ROOT / "firmware" / "table",
            "bench": ROOT / "bench"}


def module_files():
    # {dotted name: path} of every module in PACKAGES.
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package] + parts)] = path
    return found


def _base(name, path, level, module):
    # The absolute name a relative import starts from.
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    return package + ("." + module if module else "") if level else module


def imports_of(name, path, known):
    # The known modules `name` imports, anywhere in its file. The benchmarks
    # run with bench/ on the path, so a bare name there is a bench module.
    edges = set()
    local = name.partition(".")[0] + "." if name.startswith("bench.") else None
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _base(name, path, node.level, node.module)
            targets = [base + "." + alias.name for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            if local and local + target in known:
                target = local + target
            # A name imported from a module is that module; a submodule is itself.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.add(target)
    return edges


def cycles(graph):
    # The strongly connected groups of more than one module (Tarjan's).
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def graph_of(files):
    known = set(files)
    return {name: imports_of(name, path, known) for name, path in files.items()}


def folder_of(name):
    # The unit a module belongs to among the code's folders: uthctl's
    # subpackages (links, analysis, tui, ...) and each module at its top;
    # the firmware's three packages; the benchmarks' scripts one by one.
    parts = name.split(".")
    if parts[0] == "uthctl":
        return ".".join(parts[:2])
    if parts[0] == "bench":
        return name
    return parts[0]


def folders_graph(graph):
    # The module graph seen folder to folder: links importing analysis while
    # analysis imports links is a cycle even where no two modules close one.
    folders = {}
    for name, targets in graph.items():
        edges = folders.setdefault(folder_of(name), set())
        edges.update(folder_of(target) for target in targets)
    for unit, edges in folders.items():
        edges.discard(unit)
    return folders


def test_the_finder_sees_a_cycle_it_is_shown(tmp_path):
    # The check itself: two modules importing each other, one lazily, are a cycle.
    (tmp_path / "a.py").write_text("from . import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from .a import g\n")
    (tmp_path / "c.py").write_text("import pkg.a\n")
    files = {"pkg.a": tmp_path / "a.py", "pkg.b": tmp_path / "b.py",
             "pkg.c": tmp_path / "c.py"}
    assert cycles(graph_of(files)) == [["pkg.a", "pkg.b"]]
    # Two of uthctl's folders importing each other, through different modules.
    graph = {"uthctl.links.x": {"uthctl.analysis.y"}, "uthctl.analysis.z": {"uthctl.links.w"},
             "uthctl.analysis.y": set(), "uthctl.links.w": set()}
    assert cycles(folders_graph(graph)) == [["uthctl.analysis", "uthctl.links"]]


def test_no_import_cycle_in_the_host_tools_the_firmware_or_the_benchmarks():
    files = module_files()
    assert len(files) > 150  # every package was found
    graph = graph_of(files)
    assert cycles(graph) == []
    assert cycles(folders_graph(graph)) == []


# The floors: a folder never imports one that stands above it or beside it.
# The firmware's uth < mystery < table; on the host, the wire that a table's
# bridge and the floor share stands under both, and the two are siblings.
# (The commands stand above them all and may import any.)
NOT_IMPORTED_BY = {
    "uth": {"mystery", "table", "uthctl"},
    "mystery": {"table", "uthctl"},
    "table": {"uthctl"},
    "uthctl.wire": {"uthctl.bridge", "uthctl.floor", "uthctl.commands"},
    "uthctl.bridge": {"uthctl.floor", "uthctl.commands"},
    "uthctl.floor": {"uthctl.bridge", "uthctl.commands"},
}


def imports_back_up(folders):
    # (importer, imported) for each import from a lower floor or a sibling.
    return sorted((unit, target) for unit, targets in folders.items()
                  for target in targets
                  if target.partition(".")[0] in NOT_IMPORTED_BY.get(unit, ())
                  or target in NOT_IMPORTED_BY.get(unit, ()))


def test_the_floor_check_sees_the_bridge_importing_the_floor():
    graph = {"uthctl.bridge.table_bridge": {"uthctl.floor.topics", "uthctl.wire.mqtt"},
             "uthctl.floor.topics": set(), "uthctl.wire.mqtt": set(),
             "mystery.meter": {"uth.cards", "table.states"}, "uth.cards": set(),
             "table.states": set()}
    assert imports_back_up(folders_graph(graph)) == [
        ("mystery", "table"), ("uthctl.bridge", "uthctl.floor")]


def test_no_import_runs_back_up_a_floor_or_across_to_a_sibling():
    folders = folders_graph(graph_of(module_files()))
    assert {"uthctl.wire", "uthctl.bridge", "uthctl.floor"} <= set(folders)
    assert imports_back_up(folders) == []
