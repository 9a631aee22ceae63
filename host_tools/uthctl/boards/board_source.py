# A board file's module-level constants, read from its source, never imported:
# the board files import `machine` or the virtual board's boot, which the host
# has not. So the host takes a number a board owns (the virtual board's flash
# block, its hard-reset exit code) from where the board defines it.
import ast
from pathlib import Path

from . import REPO

SIMBOOT = REPO / "boards" / "sim" / "simboot.py"


def constant(name, path=SIMBOOT):
    # NAME = const(N) or NAME = N at the module's top level.
    for node in ast.parse(Path(path).read_text(), str(path)).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name):
            continue
        value = node.value
        if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "const":
            value = value.args[0]
        return ast.literal_eval(value)
    raise ValueError("%s defines no %s" % (path, name))
