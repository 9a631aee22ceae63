# Runs the logic tests on the MicroPython unix port: imports every
# tests/logic/test_*.py and calls each test_* function, as pytest would.
# Usage: MICROPYPATH=.frozen:firmware:tests/logic micropython -X heapsize=$UTH_HEAPSIZE \
#            tests/mp_run.py [filter]
import gc
import os
import sys

LOGIC_DIR = "tests/logic"


def _test_modules(only):
    for name in sorted(os.listdir(LOGIC_DIR)):
        if name.startswith("test_") and name.endswith(".py"):
            # A file name picks that module alone; anything else, every module it is part of.
            if only is None or (only == name if only.endswith(".py") else only in name):
                yield name[:-3]


def _run_module(module_name):
    passed = failed = 0
    module = __import__(module_name)
    for attr in sorted(dir(module)):
        test = getattr(module, attr)
        if not attr.startswith("test_") or not callable(test):
            continue
        gc.collect()
        try:
            test()
            passed += 1
        except Exception as error:  # noqa: BLE001 -- each test counted, the rest still run
            failed += 1
            print("FAIL %s.%s: %s %s" % (module_name, attr, type(error).__name__, error))
            sys.print_exception(error)
    print("  %s: %d passed, %d failed" % (module_name, passed, failed))
    del sys.modules[module_name]  # a board-sized heap cannot keep every test module
    return passed, failed


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else None
    passed = failed = 0
    for module_name in _test_modules(only):
        p, f = _run_module(module_name)
        passed += p
        failed += f
    print("micropython: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


main()
