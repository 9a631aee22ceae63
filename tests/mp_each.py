# Runs every MicroPython logic test module in a process of its own, each with
# a fresh board-sized heap, and totals the counts (CPython; `make test` calls it).
#
# One process for all modules let the heap fill with what earlier modules left
# behind (their firmware imports, fragments) until a later one failed to load
# for a reason no board would meet: a board boots one firmware, not 20 test
# modules. Usage: python tests/mp_each.py [--quick] MICROPYTHON [ARG...]; --quick
# leaves out the modules slow_logic.py names (`make check`). Modules run side by
# side, one a core (UTH_JOBS sets how many), the slow ones first: each is a
# process of its own whatever runs beside it, and the proofs take minutes.
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from slow_logic import SLOW_MODULES

from uthctl import firmware_sources
from uthctl.boards import heaps

LOGIC_DIR = os.path.join("tests", "logic")
# Every logic module claims both boards that run the controller, so each runs at
# the smaller of their heaps as the board files state them (uthctl/boards/heaps.py): the
# Pico's. UTH_HEAPSIZE passes it on to the proofs that start a process of their own.
HEAP_BOARD, HEAP_BYTES = heaps.smallest()
# micropython-lib's modules the logic tests check the firmware against (hmac).
LIBRARIES = [str(path) for path in firmware_sources.library_folders()]
SUMMARY = re.compile(r"^micropython: (\d+) passed, (\d+) failed$", re.M)


def test_files():
    return sorted(name for name in os.listdir(LOGIC_DIR)
                  if name.startswith("test_") and name.endswith(".py"))


def run_one(interpreter, file_name):
    """(passed, failed) of one module; a crash or a missing summary fails it."""
    # .frozen: the interpreter's frozen modules (asyncio), as a board has them.
    heapsize = heaps.heapsize(HEAP_BYTES)
    env = dict(os.environ, MICROPYPATH=":".join([".frozen", "firmware", LOGIC_DIR] + LIBRARIES),
               UTH_HEAPSIZE=heapsize)
    interpreter = interpreter[:1] + ["-X", "heapsize=" + heapsize] + interpreter[1:]
    done = subprocess.run(interpreter + ["tests/mp_run.py", file_name], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    found = SUMMARY.findall(done.stdout)
    # The child's own total is redundant here; its output above it is kept whole.
    shown = SUMMARY.sub("", done.stdout).rstrip("\n") + "\n"
    if done.returncode not in (0, 1) or len(found) != 1:
        return 0, 1, shown + ("FAIL %s: the interpreter exited with status %d before its "
                              "summary\n" % (file_name, done.returncode))
    passed, failed = (int(n) for n in found[0])
    return passed, failed, shown


def jobs():
    return max(1, int(os.environ.get("UTH_JOBS") or os.cpu_count() or 1))


def main(interpreter, quick=False):
    passed = failed = 0
    print("micropython: each module at %s's heap, %d bytes" % (HEAP_BOARD, HEAP_BYTES))
    chosen = []
    for file_name in test_files():
        if quick and file_name in SLOW_MODULES:
            print("  %s: left out (slow; make test runs it)" % file_name[:-3])
        else:
            chosen.append(file_name)
    chosen.sort(key=lambda name: name not in SLOW_MODULES)  # the long poles start first
    with ThreadPoolExecutor(jobs()) as pool:
        runs = [pool.submit(run_one, interpreter, name) for name in chosen]
        for run in runs:
            p, f, shown = run.result()
            sys.stdout.write(shown)
            sys.stdout.flush()
            passed += p
            failed += f
    print("micropython: %d passed, %d failed (a fresh process per module)" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    quick = sys.argv[1:2] == ["--quick"]
    interpreter = sys.argv[2:] if quick else sys.argv[1:]
    if not interpreter:
        sys.exit("usage: python tests/mp_each.py [--quick] MICROPYTHON [ARG...]")
    sys.exit(main(interpreter, quick))
