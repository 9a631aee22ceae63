# What the record key costs on the emulated Pico (docs/benchmarks.md, "The
# record key's cost"): the official rp2 image with the project deployed by
# `make deploy`, as pico_bench.py runs it, A1 configured; LOCK to the committed
# "locked" event over N six-seat rounds, then the key given in service mode
# (`provision`) and N rounds more, each commit now signing its round record;
# then, the controller's port handed to the REPL, one record's authenticator and one record's
# link (chain.link, its hash) timed on the chip, each the best of repeats.
# --image project runs the project's own image (the controller frozen in) with
# the bench's /boot.py put on its flash, as image_compare.py does; --profile
# has that /boot.py time the LOCK path's steps with ticks_us on the chip.
# Usage: .venv/bin/python bench/pico_lock_key.py [--rounds N] [--image official|project]
#        [--profile] [--json FILE]
# Times are estimates from the emulator's cycle count at 125 MHz (pico_bench.py).
import argparse
import json
import os
import statistics
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


def bench(rounds, image="official", profile=False):
    from uthctl.boards.handoff import hand_to_repl
    from uthctl.boards.pico import PicoBoard

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="uth-bench-pico-key-") as tmp:
        log = open(os.path.join(tmp, "board.log"), "w")
        board = PicoBoard(os.path.join(tmp, "pico.img"), realtime=False, stderr=log,
                          image=image)
        with board:
            came = board.wait_started(pico_bench.BOOT_WAIT)
            if image == "official":
                if came["state"] != "repl":
                    raise RuntimeError("a new flash did not come up at the REPL: %s" % came)
                pico_bench.deploy(board, tmp, pico_bench.quiet_seed(), profile)
            else:  # the project's image: the controller frozen in, the bench's /boot.py added
                import image_compare

                if came["state"] != "unconfigured":
                    raise RuntimeError("a new flash did not start unconfigured: %s" % came)
                image_compare.bench_boot(board, tmp, pico_bench.quiet_seed(), profile)
            pico_bench.progress("deployed", started)
            pico_bench.configure(board)
            result = {"rounds": rounds, "image": image,
                      "unsigned": pico_bench.lock_rounds(board, rounds)}
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


def print_profile(name, each):
    # The steps' medians and maxima over the rounds, and the slowest rounds' own.
    steps = sorted({step for one in each for step in one.get("profile", {})})
    if not steps:
        return
    print("  %s, where the time goes (us; median / max over the rounds):" % name)
    for step in ["tick_wait_us", "tick_to_locked_us"] + steps:
        values = [one["profile"].get(step, 0) if step in steps else one[step] for one in each]
        print("    %-18s %8.0f / %8.0f" % (step, statistics.median(values), max(values)))
    print("    rounds where a collection ran inside: %d of %d; a collection after the"
          " stamp: median %.1f ms" % (sum(one["alloc_drop"] for one in each), len(each),
                                      statistics.median(one["gc_us"] for one in each) / 1e3))
    for one in sorted(each, key=lambda one: -one["ms"])[:3]:
        print("    slow round %.1f ms: wait %.1f, %s; flash %s; collection inside: %s" % (
            one["ms"], one["tick_wait_us"] / 1e3,
            ", ".join("%s %.1f" % (k, v / 1e3) for k, v in sorted(one["profile"].items())),
            "%d/%d" % (one["flash"]["erase"], one["flash"]["program"]), bool(one["alloc_drop"])))


def print_report(r):
    print("Emulated Pico, %s image: LOCK edge -> \"locked\" written, %d six-seat rounds each (%s)"
          % (r.get("image", "official"), r["rounds"], pico_bench.MHZ_NOTE))
    for name in ("unsigned", "signed"):
        m = r[name]["lock_to_locked_ms"]
        flash = r[name]["flash_per_round"]
        print("  %-10s best %.1f, median %.1f, max %.1f ms; flash a round: %s" % (
            name, m["best"], m["median"], m["max"],
            ", ".join("%s %.1f" % item for item in sorted(flash.items()))))
    for name in ("unsigned", "signed"):
        print_profile(name, r[name].get("each", []))
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
    parser.add_argument("--image", choices=("official", "project"), default="official",
                        help="official: the .mpy build deployed (default); project: the "
                             "controller frozen in (make image)")
    parser.add_argument("--profile", action="store_true",
                        help="time the LOCK path's steps on the chip (bench/pico_boot.py)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    sys.path.insert(0, str(pico_bench.ROOT / "host_tools"))
    result = bench(args.rounds, args.image, args.profile)
    print_report(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
