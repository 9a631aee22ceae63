# Figures on the emulated ESP32's clock, beside the emulated Pico's
# (docs/benchmarks.md, "On the emulated ESP32"), from the .mpy build on its
# flash, at the REPL (no main.py), each timed with ticks_us on the chip:
#   the evaluator over the Pico's 2,000 hands (workload.py's, seed 653; put
#   on the flash by the host, so the chip's heap is not cut up by making
#   them) and its scores' checksum against the host's;
#   the six-seat settlement (workload.SETTLE_ROUND), pico_bench's script;
#   the `round` command (round_command.py), the controller built as main.py
#   builds it, its commit on the emulated flash.
# QEMU runs the image at the speed the host gives it and times it by the
# host's clock (no instruction counting): these are QEMU's figures on this
# host, not the chip's, and its flash operations are far slower than a chip's.
# The LOCK rounds need the controller running: bench/esp32_lock.py.
#   python bench/esp32_bench.py [--hands N] [--json FILE]
import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pico_bench  # noqa: E402
import workload  # noqa: E402
from esp32_census import at_repl  # noqa: E402

SPIN = """
import time, json
start = time.ticks_ms()
for i in range(100000):
    pass
print(json.dumps({"loop_100k_ms": time.ticks_diff(time.ticks_ms(), start)}))
"""
ROUND = "import round_command\nround_command.main()\n"
# Each program starts from the REPL's globals cleared and a collection: the
# programs share one interpreter (no soft reset), and the evaluator's 2,000
# hands left in its globals took the heap the controller's build needs.
CLEAN = """
for _name in list(globals()):
    if not _name.startswith("__"):
        del globals()[_name]
import gc
gc.collect()
"""
REPEATS = 7
SETTLE_CALLS = 10


def host_checksum(hands):
    # The chip's checksum of its scores, computed here by the plain twin.
    from uth import eval_plain

    return pico_bench.checksum(eval_plain.score(hand, 7) for hand in hands)


def bench(count, seed):
    hands = workload.make_hands(count, seed)
    files = {"bench_hands.bin": b"".join(hands),
             "round_command.py": (HERE / "round_command.py").read_bytes()}
    programs = [
        ("loop", SPIN, 3),
        ("evaluator", pico_bench.EVAL_SCRIPT % {"repeats": REPEATS}, 3),
        ("settle", pico_bench.SETTLE_SCRIPT % {"round": json.dumps(workload.SETTLE_ROUND),
                                               "calls": SETTLE_CALLS, "repeats": REPEATS}, 3),
        ("round", ROUND, 3),
    ]
    found = at_repl([(name, CLEAN + text, tries) for name, text, tries in programs],
                    files=files)
    evaluator = found.get("evaluator")
    if evaluator:
        evaluator["hands_per_s"] = round(evaluator["hands"] * 1e6 / evaluator["best_us"])
        evaluator["scores_agree"] = evaluator["checksum"] == host_checksum(hands)
    if found.get("settle"):
        found["settle"]["ms_per_round"] = found["settle"]["best_us"] / SETTLE_CALLS / 1000
    return found


def print_report(repl, lock=None):
    print("Emulated ESP32 (official ESP32_GENERIC image on QEMU; the .mpy build on its flash):")
    print("  QEMU's times on this host's clock, not the chip's (docs/benchmarks.md)")
    evaluator, settle, command = (repl.get(name) for name in ("evaluator", "settle", "round"))
    if evaluator:
        print("  evaluator (%s): {:,} hands/s over %d hands, best of %d; scores agree with "
              "the host's: %s".format(evaluator["hands_per_s"])
              % (evaluator["kind"], evaluator["hands"], REPEATS,
                 "yes" if evaluator["scores_agree"] else "NO"))
    if settle:
        print("  six-seat settlement: %.1f ms per round, best of %d x %d calls"
              % (settle["ms_per_round"], REPEATS, SETTLE_CALLS))
    if command:
        print("  the round command, bytes in to committed reply: best %.1f, median %.1f ms"
              % (command["round_ms_best"], command["round_ms_median"]))
    if lock and lock.get("stopped"):
        print("  LOCK rounds stopped %s" % lock["stopped"])
    if lock and lock["rounds"]:
        for name, what in (("chip_ms", "LOCK read -> \"locked\" written, the chip's clock"),
                           ("host_ms", "rig's LOCK sent -> \"locked\" read, the host's")):
            m = lock[name]
            print("  %s: best %.1f, median %.1f, max %.1f ms (%d rounds)"
                  % (what, m["best"], m["median"], m["max"], len(lock["rounds"])))
    print("  panics: %s at the REPL, %s with the controller running"
          % (repl.get("panics"), lock.get("panics") if lock else "-"))


def main(argv=None):
    parser = argparse.ArgumentParser(description="figures on the emulated ESP32's clock")
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=653)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    found = bench(args.hands, args.seed)
    print(json.dumps(found))
    print_report(found)
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
