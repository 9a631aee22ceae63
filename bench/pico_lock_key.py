# What the record key costs on the emulated Pico (docs/benchmarks.md, "The
# record key's cost"): the official rp2 image with the project deployed by
# `make deploy`, as pico_bench.py runs it, A1 configured; LOCK to the committed
# "locked" event over N six-seat rounds, then the key given in service mode
# (`provision`) and N rounds more, each commit now signing its round record;
# then, the controller's port handed to the REPL, one record's authenticator and one record's
# link (chain.link, its hash) timed on the chip, each the best of repeats.
# Usage: .venv/bin/python bench/pico_lock_key.py [--rounds N] [--json FILE]
# Times are estimates from the emulator's cycle count at 125 MHz (pico_bench.py).
import argparse
import json
import os
import sys
import tempfile
import time

import pico_bench  # bench/, beside this script

RECORD_KEY = "5e" * 32

CHIP_SCRIPT = r"""
import json, time
from mystery import chain, recordkey

KEY = bytes(range(32))
KID = recordkey.key_id(KEY)
RECORD = {"ev": "round", "round": 7, "meter": 100120000, "time": 1700000000,
          "contributions": [[seat, 100, 20000] for seat in range(1, 7)]}
PREV = "ab" * 32

def best(call, repeats=7, calls=10):
    found = None
    for _ in range(repeats):
        start = time.ticks_us()
        for _ in range(calls):
            call()
        took = time.ticks_diff(time.ticks_us(), start) / calls
        found = took if found is None or took < found else found
    return found

recordkey.record_auth(KEY, KID, PREV)  # hmac loaded, as after the first signed commit
print(json.dumps({"record_auth_us": best(lambda: recordkey.record_auth(KEY, KID, PREV)),
                  "link_us": best(lambda: chain.link(RECORD, 9, PREV))}))
"""


def provision(board, key):
    # As a technician gives it: service mode, then the host link's provision.
    from uthctl.links.board_link import Link
    from uthctl.links.rig import Rig

    with Link(board.serial_path, timeout=120.0) as link, Rig(board.rig_address,
                                                                timeout=120.0) as rig:
        link.wait_ready(timeout=60.0)
        rig.key(True)
        pico_bench._wait_state(link, lambda state: state == "service", "service mode")
        reply = link.command("provision", key=key)
        if not reply.get("ok"):
            raise RuntimeError("provision refused: %s" % reply)
        rig.key(False)
        pico_bench._wait_state(link, lambda state: state != "service", "service mode left")
        return reply["key_id"]


def bench(rounds):
    from uthctl.boards.handoff import hand_to_repl
    from uthctl.boards.pico import PicoBoard

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="uth-bench-pico-key-") as tmp:
        log = open(os.path.join(tmp, "board.log"), "w")
        board = PicoBoard(os.path.join(tmp, "pico.img"), realtime=False, stderr=log,
                          image="official")
        with board:
            came = board.wait_started(pico_bench.BOOT_WAIT)
            if came["state"] != "repl":
                raise RuntimeError("a new flash did not come up at the REPL: %s" % came)
            pico_bench.deploy(board, tmp, pico_bench.quiet_seed())
            pico_bench.progress("deployed", started)
            pico_bench.configure(board)
            result = {"rounds": rounds, "unsigned": pico_bench.lock_rounds(board, rounds)}
            pico_bench.progress("unsigned rounds done", started)
            result["key_id"] = provision(board, RECORD_KEY)
            result["signed"] = pico_bench.lock_rounds(board, rounds)
            pico_bench.progress("signed rounds done", started)
            # The controller's port handed to the REPL (the key held, `repl`).
            hand_to_repl(board.serial_path, board.rig_address, timeout=120.0)
            result["chip"] = pico_bench.run_script(board.serial_path, tmp, "mac.py",
                                                   CHIP_SCRIPT)
        log.close()
    result["wall_s"] = time.monotonic() - started
    return result


def print_report(r):
    print("Emulated Pico: LOCK edge -> \"locked\" written, %d six-seat rounds each (%s)"
          % (r["rounds"], pico_bench.MHZ_NOTE))
    for name in ("unsigned", "signed"):
        m = r[name]["lock_to_locked_ms"]
        flash = r[name]["flash_per_round"]
        print("  %-10s best %.1f, median %.1f, max %.1f ms; flash a round: %s" % (
            name, m["best"], m["median"], m["max"],
            ", ".join("%s %.1f" % item for item in sorted(flash.items()))))
    before, after = r["unsigned"]["lock_to_locked_ms"], r["signed"]["lock_to_locked_ms"]
    print("  with the key / without: best %.2f, median %.2f, max %.2f" % (
        after["best"] / before["best"], after["median"] / before["median"],
        after["max"] / before["max"]))
    chip = r["chip"]
    print("  on the chip: one record's authenticator %.2f ms, one round record's link %.2f ms"
          % (chip["record_auth_us"] / 1000, chip["link_us"] / 1000))


def main():
    parser = argparse.ArgumentParser(description="the record key's cost on the emulated Pico")
    parser.add_argument("--rounds", type=int, default=5, help="rounds each way (default 5)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    result = bench(args.rounds)
    print_report(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
