# The two Pico images side by side in `make bench`, each on the emulated Pico's
# own clock: the project's image (the controller frozen in, `make image`) and
# the official MicroPython image with the .mpy build deployed (`make deploy`).
# On each, with the bench's /boot.py (pico_boot.py, a quiet seed): the heap
# census (heap_census.py), the whole `round` command (round_command.py), one
# authentication's pieces (auth_pieces.py), then the controller restarted, A1
# configured in service mode (a new flash is unconfigured) and LOCK to "locked"
# over a few rounds through the pins (pico_bench.lock_rounds).
# Reported beside the goals, never judged. rp2040js charges nothing for XIP
# cache misses, which frozen bytecode (run from flash) meets more often than
# bytecode in RAM: a real Pico's project image is slower than these figures
# by more than the .mpy path is.
# Usage: .venv/bin/python bench/image_compare.py [--json FILE]
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import heap_report
import pico_bench  # bench/, beside this script

IMAGES = ("project", "official")
LOCK_ROUNDS = 5
GOALS = {"first_round_kb": 64.0, "free_after_kb": 170.0, "round_ms": 40.0, "lock_ms": 50.0,
         "piece_ms": 10.0}


def bench_boot(board, tmp, seed, profile=False):
    # The project's image: the bench's /boot.py onto the flash the controller
    # made at its first start, then a reset so it runs, and the controller
    # started again before any mpremote (pico_bench.restarted says why).
    from uthctl.boards.handoff import hand_to_repl

    boot = Path(tmp) / "boot.py"
    boot.write_text(pico_bench.boot_text(seed, profile))
    boots = board.state()["boots"]
    hand_to_repl(board.serial_path, board.rig_address, timeout=120.0)  # the key, `repl`
    pico_bench.mpremote(board.serial_path, "cp", str(boot), ":boot.py", "+", "cp",
                        str(pico_bench.SEEDED_BYTES), ":seeded_bytes.py", "+", "reset")
    pico_bench.restarted(board, boots, "the bench's /boot.py")


def on_image(image):
    from uthctl.boards.handoff import hand_to_repl
    from uthctl.boards.pico import PicoBoard

    with tempfile.TemporaryDirectory(prefix="uth-bench-%s-" % image) as tmp:
        with open(os.path.join(tmp, "board.log"), "w") as log:
            board = PicoBoard(os.path.join(tmp, "pico.img"), realtime=False, stderr=log,
                              image=image)
            with board:
                came = board.wait_started(pico_bench.BOOT_WAIT)
                if image == "official":
                    pico_bench.deploy(board, tmp, pico_bench.quiet_seed())
                else:
                    assert came["state"] == "unconfigured", came
                    bench_boot(board, tmp, pico_bench.quiet_seed())
                # The running controller's port handed to the REPL (the key
                # held, `repl`): no byte alone stops it.
                hand_to_repl(board.serial_path, board.rig_address, timeout=120.0)
                found = {name: pico_bench.last_json(pico_bench.mpremote(
                    board.serial_path, "run", str(pico_bench.BENCH / script)))
                    for name, script in (("heap", "heap_census.py"),
                                         ("round", "round_command.py"),
                                         ("auth", "auth_pieces.py"))}
                board.reset()
                came = board.wait_started(pico_bench.BOOT_WAIT)
                if came["state"] in (None, "repl"):
                    raise RuntimeError("the controller did not restart: %s" % came)
                pico_bench.configure(board)
                found["lock"] = pico_bench.lock_rounds(board, LOCK_ROUNDS)
    return found


def bench():
    started = time.monotonic()
    found = {image: on_image(image) for image in IMAGES}
    found["wall_s"] = time.monotonic() - started
    return found


def _rows(found):
    kb = 1024.0
    rows = [("heap", "heap_census: whole heap", lambda f: "%.1f KB" % (f["heap"]["heap"] / kb),
             None)]
    for key, words in heap_report.STAGES:
        rows.append(("heap", "  used, " + words, lambda f, k=key: "%.1f KB" % (f["heap"][k] / kb),
                     "<= %.0f KB" % GOALS["first_round_kb"] if key == "first_round" else None))
    rows += [
        ("heap", "  free after ten rounds", lambda f: "%.1f KB" % (f["heap"]["free_after"] / kb),
         ">= %.0f KB" % GOALS["free_after_kb"]),
        ("round", "round command, best", lambda f: "%.1f ms" % f["round"]["round_ms_best"],
         "<= %.0f ms" % GOALS["round_ms"]),
        ("round", "round command, median", lambda f: "%.1f ms" % f["round"]["round_ms_median"],
         None),
        ("round", "uth.settle alone", lambda f: "%.1f ms" % f["round"]["settle_ms"], None),
        ("lock", "LOCK -> locked, max",
         lambda f: "%.1f ms" % f["lock"]["lock_to_locked_ms"]["max"],
         "<= %.0f ms + flash" % GOALS["lock_ms"]),
        ("lock", "LOCK -> locked, median",
         lambda f: "%.1f ms" % f["lock"]["lock_to_locked_ms"]["median"], None),
        ("auth", "authenticate: longest piece", lambda f: "%.2f ms" % (f["auth"]["max_us"] / 1e3),
         "<= %.0f ms" % GOALS["piece_ms"]),
        ("auth", "authenticate: whole, CPU", lambda f: "%.0f ms, %d pieces, %s %s bytes" % (
            f["auth"]["total_us"] / 1e3, f["auth"]["pieces"], f["auth"]["program"],
            "{:,}".format(f["auth"]["bytes"])), None),
    ]
    return rows


def print_report(found):
    print("The two Pico images on the emulated Pico (%s):" % pico_bench.MHZ_NOTE)
    print("  rp2040js charges nothing for XIP cache misses, which the project image's frozen")
    print("  bytecode (run from flash) meets more often than bytecode in RAM: on a real Pico its")
    print("  times are optimistic by more than the .mpy path's.")
    print("  %-32s %-30s %-22s %s" % ("", "project image (frozen)", "official + .mpy", "goal"))
    for _, label, value, goal in _rows(found):
        print("  %-32s %-30s %-22s %s" % (label, value(found["project"]),
                                          value(found["official"]), goal or ""))
    print("  (both images took %.0f s of wall time)" % found["wall_s"])


def main():
    parser = argparse.ArgumentParser(description="the two Pico images side by side")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    sys.path.insert(0, str(pico_bench.ROOT / "host_tools"))
    found = bench()
    print_report(found)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(found, file, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
