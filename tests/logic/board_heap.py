# The heap a proof that starts a process of its own gives that process: the one
# tests/mp_each.py runs this module at, the smallest board's it claims
# (uthctl/boards/heaps.py), passed down in UTH_HEAPSIZE as a -X heapsize value.
import os


def heapsize():
    found = os.getenv("UTH_HEAPSIZE")
    if not found:
        raise RuntimeError("UTH_HEAPSIZE is not set: run the logic tests with tests/mp_each.py")
    return found
