# A module let go once its work is done: out of sys.modules and of its
# package, so the heap it holds (its bytecode, as a .mpy loaded from the
# filesystem; its constants) is freed at the next collection. For code a
# board runs once or seldom (a start's check, a signed command's check, a
# proof run at import), which play never needs in its heap (docs/heap.md).
import sys


def let_go(name):
    # name: the module's full name, "package.module".
    parent, _, child = name.rpartition(".")
    sys.modules.pop(name, None)
    package = sys.modules.get(parent)
    if package is not None and hasattr(package, child):
        delattr(package, child)
