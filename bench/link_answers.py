# How soon the host link says what is wrong instead of waiting out its
# timeout: the figures tests once held as wall-clock limits (docs/testing.md,
# "No wall-clock limit in a test"). Reported against their goals, never asserted.
# Usage: .venv/bin/python bench/link_answers.py [--runs N] [--json FILE]
#
# Each run is a whole `uthctl` command in a process of its own, timed on the
# host from its start to its exit (Python's start and uthctl's import in it):
# 1. a silent serial port (a pty with nothing behind it, listed as the
#    machine's own /dev/ttyS0 would be), `uthctl status --port PTY --timeout
#    60`: "nothing answers on PTY" once NOT_A_BOARD_S have passed unheard;
# 2. the virtual board handed to its MicroPython REPL (the key held, `repl`, then mpremote),
#    `uthctl meters --port PTY --timeout 10`: "is at the MicroPython REPL",
#    from the REPL's echo of the command line or its prompt.
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path

from uthctl.boards.handoff import hand_to_repl
from uthctl.boards.virtual import VirtualBoard
from uthctl.links.board_link import NOT_A_BOARD_S, PROMPT_GRACE_S

MPREMOTE = Path(sys.executable).parent / "mpremote"
# The goals are for the answer less the command's own start (Python and
# uthctl's imports, timed apart as `uthctl --help`): its grace and half a second.
GOAL_SILENT_S = NOT_A_BOARD_S + 0.5
GOAL_REPL_S = PROMPT_GRACE_S + 0.5
SILENT_TIMEOUT, REPL_TIMEOUT = 60, 10  # the timeouts the answers come well before


def timed(argv, says, status=2):
    # Seconds from starting the command to its exit; it must end with `status`
    # saying `says`.
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    took = time.perf_counter() - started
    if done.returncode != status or says not in done.stdout + done.stderr:
        raise SystemExit("unexpected answer (%d): %s" % (done.returncode, done.stderr.strip()))
    return took


def uthctl(*args):
    return [sys.executable, "-m", "uthctl.cli", *args]


# uthctl with the pty listed among the machine's ports with no USB id, as
# /dev/ttyS0 is with nothing on its wires (tests/host/test_cli_small.py's way).
AS_A_UART = """
import sys
from serial.tools.list_ports_common import ListPortInfo
from uthctl.links import ports
from uthctl.cli import main
ports.comports = lambda: [ListPortInfo(sys.argv[1], skip_link_detection=True)]
sys.exit(main(sys.argv[2:]))
"""


def silent_port(runs):
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        device = os.ttyname(slave)
        argv = [sys.executable, "-c", AS_A_UART, device, "status", "--port", device,
                "--timeout", str(SILENT_TIMEOUT)]
        return [timed(argv, "nothing answers on") for _ in range(runs)]
    finally:
        os.close(slave)
        os.close(master)


def board_at_the_repl(runs):
    with tempfile.TemporaryDirectory(prefix="uth-link-answers-") as folder, \
            VirtualBoard(flash=Path(folder) / "flash.img") as board:
        board.wait_started(60)
        hand_to_repl(board.serial_path, board.rig_address)  # the key held, `repl`
        subprocess.run([str(MPREMOTE), "connect", board.serial_path, "resume", "exec",
                        "print(1)"], check=True, capture_output=True, timeout=120)
        return [timed(uthctl("meters", "--port", board.serial_path, "--timeout",
                             str(REPL_TIMEOUT)), "is at the MicroPython REPL")
                for _ in range(runs)]


def figures(times):
    return {"best_s": min(times), "median_s": statistics.median(times), "max_s": max(times),
            "runs": len(times)}


def bench(runs):
    start = statistics.median(timed(uthctl("--help"), "usage", status=0) for _ in range(runs))
    found = {"start_s": start, "silent_port": figures(silent_port(runs)),
             "at_the_repl": figures(board_at_the_repl(runs))}
    for key in ("silent_port", "at_the_repl"):
        found[key]["answer_median_s"] = found[key]["median_s"] - start
        found[key]["answer_max_s"] = found[key]["max_s"] - start
    return found


def print_report(found):
    print("The host link's answers, each a whole uthctl command (%d runs; load average %.1f "
          "on %d cores):" % (found["silent_port"]["runs"], os.getloadavg()[0], os.cpu_count()))
    print("  the command's own start (uthctl --help), median: %.2f s; the answer is the rest"
          % found["start_s"])
    print("  %-48s %7s %7s %7s %8s  %s" % ("", "best", "median", "max", "answer", "goal"))
    rows = (("a silent port: \"nothing answers\"", "silent_port", GOAL_SILENT_S,
             SILENT_TIMEOUT),
            ("a board at its REPL: \"at the MicroPython REPL\"", "at_the_repl", GOAL_REPL_S,
             REPL_TIMEOUT))
    for label, key, goal, timeout in rows:
        row = found[key]
        print("  %-48s %6.2fs %6.2fs %6.2fs %7.2fs  answer under %.1f s (timeout %d s)%s"
              % (label, row["best_s"], row["median_s"], row["max_s"], row["answer_median_s"],
                 goal, timeout, "" if row["answer_median_s"] < goal else "  MISSED"))


def main():
    parser = argparse.ArgumentParser(description="how soon the host link answers")
    parser.add_argument("--runs", type=int, default=5, help="runs of each (default 5)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    found = bench(args.runs)
    print_report(found)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(found, file, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
