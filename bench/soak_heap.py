# `make soak-heap`: the controller driven in-process (bench/soak_heap_board.py)
# on the 32-bit unix port at each board's heap as its board file states it
# (uthctl/boards/heaps.py), from the virtual board's build (.mpy files, as a board
# loads them), on littlefs as that board mounts it. Prints, per board, the free
# heap after a collection and the largest free block (micropython.mem_info(1)'s
# "max free sz", in 16-byte blocks) every 1,000 rounds, and draws them in
# OUT/heap.png. Exits 1 on any fault, failed allocation or restart. By default
# the supported boards: the Pico and the ESP32-WROVER; esp32_wroom (no PSRAM,
# settlement refused there, boards/esp32_devkitc/board.py) when named.
#   .venv/bin/python bench/soak_heap.py [--rounds N] [--seed S] [--out DIR] [BOARD...]
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from uthctl.boards import REPO, heaps, sim_build

BOARD_SCRIPT = REPO / "bench" / "soak_heap_board.py"
MICROPYTHON = REPO / ".venv" / "bin" / "micropython"
# name -> (title, board file, heap constant, littlefs mount)
BOARDS = {
    "rp2040_pico": ("RP2040 Pico", "rp2040_pico", "HEAP_BYTES", "pico"),
    "esp32_wroom": ("ESP32-WROOM-32", "esp32_devkitc", "WROOM_HEAP_BYTES", "esp32"),
    "esp32_wrover": ("ESP32-WROVER", "esp32_devkitc", "HEAP_BYTES", "esp32"),
}
SUPPORTED = ("rp2040_pico", "esp32_wrover")
SAMPLE = re.compile(r"^SAMPLE (\d+) (\d+) (\d+)$")
MAX_FREE = re.compile(r"max free sz: (\d+)")
BLOCK = 16  # bytes a GC block, on a 32-bit heap


def soak(name, rounds, seed):
    """{"samples": [(round, free, least, largest free bytes)], "done": {...} or None,
    "problems": [lines]}."""
    title, board, constant, mount = BOARDS[name]
    budget = heaps.budget(board, constant)
    firmware, _ = sim_build.compiled(REPO)
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(
        [".frozen", str(firmware), str(REPO / "tests" / "logic")]))
    found = {"title": title, "budget": budget, "samples": [], "done": None, "problems": []}
    with tempfile.TemporaryDirectory(prefix="uth-soak-heap-") as folder:
        command = [str(MICROPYTHON), "-X", "heapsize=" + heaps.heapsize(budget),
                   str(BOARD_SCRIPT), mount, str(rounds), str(seed), folder]
        with subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) as proc:
            pending = None
            for line in proc.stdout:
                line = line.rstrip("\n")
                match = SAMPLE.match(line)
                if match:
                    pending = tuple(int(n) for n in match.groups())
                    continue
                match = MAX_FREE.search(line)
                if match and pending is not None:
                    found["samples"].append(pending + (int(match.group(1)) * BLOCK,))
                    print("  %-15s round %7d: free %7d, least %7d, largest free block %7d"
                          % ((title,) + found["samples"][-1]), flush=True)
                    pending = None
                elif line.startswith("DONE "):
                    found["done"] = json.loads(line[5:])
                elif re.match(r"^(MEMORY|FAULT|ROUND|EXPORT|Traceback|\w*Error)", line):
                    found["problems"].append(line)
                    print("  %s: %s" % (title, line), flush=True)
        found["status"] = proc.returncode
    return found


def table(results):
    lines = ["| board (budget) | round | free heap | least free | largest free block |",
             "|---|---:|---:|---:|---:|"]
    for found in results:
        for number, free, least, largest in found["samples"][::10] + found["samples"][-1:]:
            lines.append("| %s (%d) | %d | %d | %d | %d |" % (
                found["title"], found["budget"], number, free, least, largest))
    return "\n".join(lines)


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(9, 5))
    for found in results:
        rounds = [s[0] for s in found["samples"]]
        axes.plot(rounds, [s[1] / 1024 for s in found["samples"]],
                  label="%s: free heap" % found["title"])
        axes.plot(rounds, [s[3] / 1024 for s in found["samples"]], linestyle="--",
                  label="%s: largest free block" % found["title"])
    axes.set_xlabel("rounds")
    axes.set_ylabel("KB")
    axes.set_yscale("log")
    axes.set_title("The controller's heap over a soak, 32-bit unix port at each board's heap")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def failed(found):
    done = found["done"]
    return (found["status"] != 0 or done is None or found["problems"]
            or done["memory_events"] or done["restarts"])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(REPO / "build" / "soak-heap"))
    parser.add_argument("boards", nargs="*", help="of %s (default: all)" % ", ".join(BOARDS))
    args = parser.parse_args()
    unknown = [name for name in args.boards if name not in BOARDS]
    if unknown:
        parser.error("unknown board %s; the boards are %s" % (unknown[0], ", ".join(BOARDS)))
    args.boards = args.boards or list(SUPPORTED)
    os.makedirs(args.out, exist_ok=True)
    results = []
    for name in args.boards:
        print("%s: %d rounds at %d bytes of heap" % (BOARDS[name][0], args.rounds,
                                                     heaps.budget(*BOARDS[name][1:3])))
        results.append(soak(name, args.rounds, args.seed))
        print("  %s" % json.dumps(results[-1]["done"]))
    print(table(results))
    with open(os.path.join(args.out, "soak-heap.json"), "w") as file:
        json.dump(results, file, indent=1)
    plot(results, os.path.join(args.out, "heap.png"))
    print("figures: %s/soak-heap.json, %s/heap.png" % (args.out, args.out))
    bad = [found["title"] for found in results if failed(found)]
    if bad:
        print("soak-heap: faults, failed allocations or restarts on %s" % ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
