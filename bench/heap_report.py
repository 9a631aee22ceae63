# The controller's heap in `make bench`: bench/heap_census.py run on the 32-bit
# unix port from the virtual board's build (the sim build, x86 .mpy files) at
# each board's heap as its board file states it (uthctl/boards/heaps.py), and on the
# emulated Pico by pico_bench.py from the deployed build. Reported, never judged.
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "bench", "heap_census.py")
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
STAGES = (("start", "before the firmware"), ("controller", "controller built"),
          ("first_round", "after the first round"), ("after_rounds", "after ten rounds"))


def board_heaps():
    # (title, GC heap bytes): each controller board's budget, from its board file.
    from uthctl.boards import heaps

    return (("RP2040 Pico", heaps.budget("rp2040_pico")),
            ("ESP32-WROOM-32", heaps.budget("esp32_devkitc", "WROOM_HEAP_BYTES")),
            ("ESP32-WROVER", heaps.budget("esp32_devkitc")))


def unix(boards=None, signed=False):
    # {title: census, or {"failed": the last line it printed}}, with its budget;
    # signed: the table given a record key first, so every commit signs.
    sys.path.insert(0, os.path.join(ROOT, "host_tools"))
    from uthctl.boards import REPO, heaps, sim_build

    firmware, _ = sim_build.compiled(REPO)
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(
        [".frozen", str(firmware), os.path.join("tests", "logic")]))
    found = {}
    for title, budget in boards or board_heaps():
        command = [MICROPYTHON, "-X", "heapsize=" + heaps.heapsize(budget), SCRIPT]
        done = subprocess.run(command + (["signed"] if signed else []),
                              cwd=ROOT, env=env, capture_output=True, text=True)
        lines = (done.stdout + done.stderr).strip().splitlines() or ["(nothing)"]
        try:
            found[title] = json.loads(lines[-1])
        except ValueError:
            found[title] = {"failed": lines[-1]}
        found[title]["budget"] = budget
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
    for title, census in found.items():
        print_census("32-bit unix port, sim build, at the %s's %d-byte budget"
                     % (title, census["budget"]), census)
