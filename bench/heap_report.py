# The controller's heap in `make bench`: bench/heap_census.py run on the unix
# port from the virtual board's build (the sim build, x64 .mpy files) at the
# logic tests' 192K and at the virtual board's heap, and on the emulated Pico
# by pico_bench.py from the deployed build. Reported, never judged.
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "bench", "heap_census.py")
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
STAGES = (("start", "before the firmware"), ("controller", "controller built"),
          ("first_round", "after the first round"), ("after_rounds", "after ten rounds"))


def unix(heaps=("192K", "256K")):
    # {heap: census, or {"failed": the last line it printed}}.
    sys.path.insert(0, os.path.join(ROOT, "host_tools"))
    from uthctl.boards import REPO, sim_build

    firmware, _ = sim_build.compiled(REPO)
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(
        [".frozen", str(firmware), os.path.join("tests", "logic")]))
    found = {}
    for heap in heaps:
        done = subprocess.run([MICROPYTHON, "-X", "heapsize=" + heap, SCRIPT], cwd=ROOT,
                              env=env, capture_output=True, text=True)
        lines = (done.stdout + done.stderr).strip().splitlines() or ["(nothing)"]
        try:
            found[heap] = json.loads(lines[-1])
        except ValueError:
            found[heap] = {"failed": lines[-1]}
    return found


def print_census(title, census):
    if "failed" in census:
        print("  %s: does not run: %s" % (title, census["failed"]))
        return
    used = ", ".join("%s %.1f KB" % (words, census[key] / 1024) for key, words in STAGES)
    print("  %s: heap %.0f KB; used %s; free after %.1f KB" % (
        title, census["heap"] / 1024, used, census["free_after"] / 1024))


def print_unix(found):
    print("Heap (bench/heap_census.py; gc.mem_alloc() after a collection; 6 seats, every"
          " side wager):")
    for heap, census in found.items():
        print_census("unix port, sim build, -X heapsize=%s" % heap, census)
