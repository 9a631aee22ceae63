# What the generator costs on the emulated Pico (docs/mystery.md, "The
# generator"): the official rp2 image with the project deployed by `make
# deploy`, as pico_bench.py runs it; then, its port handed to the REPL, on the
# chip's own littlefs: the start-up health check, one draw (a reseed and a
# hit value with its salt), and a whole reset (the draw and its commit) and a
# store's boot, each before and after the generator is seeded; and the
# SHA-256 of a stream the chip's generator gives from fixed inputs, against the
# same stream made on this host by the same module (CPython). LOCK draws
# nothing; its one new cost, an input edge's timing noted, is timed too.
# Usage: .venv/bin/python bench/pico_drbg.py [--json FILE]
# Times are estimates from the emulator's cycle count at 125 MHz (pico_bench.py).
import argparse
import json
import os
import sys
import tempfile
import time

import pico_bench  # bench/, beside this script

CHIP_SCRIPT = r"""
import json, os, time
from mystery import configs, drbg, entropy, hitvalue
from mystery.bonus import MysteryBonus
from mystery.store import Store

ROOT = "/bench_drbg"
RESETS = 9
STREAM_BLOCKS = 64

def clear():
    try:
        for name in os.listdir(ROOT):
            os.remove(ROOT + "/" + name)
        os.rmdir(ROOT)
    except OSError:
        pass

def new_store():
    clear()
    os.mkdir(ROOT)

def timed(call):
    start = time.ticks_us()
    call()
    return time.ticks_diff(time.ticks_us(), start)

def best(call, repeats=5):
    return min(timed(call) for _ in range(repeats))

def summary(found):
    found = sorted(found)
    return {"best_us": found[0], "median_us": found[len(found) // 2], "max_us": found[-1]}

A1 = configs.get("A1")
generator = drbg.instantiate(os.urandom(32), os.urandom(16))

def draw():
    generator.reseed(*entropy.for_reseed(os.urandom))
    hitvalue.draw(generator.generate, A1.minimum, A1.maximum)

def resets(bonus, count):
    found = []
    for n in range(count):
        bonus.configure(("A2", "A1")[n % 2])  # closes the untouched cycle: a reset is due
        found.append(timed(bonus.reset))
    return summary(found)

def booted():
    bonus = MysteryBonus(Store(ROOT), os.urandom)
    return bonus, timed(bonus.boot)

result = {"health_check_us": best(drbg.health_check), "draw_us": best(draw),
          "note_us": best(entropy.note),  # what an input's edge costs, LOCK's among them
          "raw_draw_us": best(lambda: hitvalue.draw(os.urandom, A1.minimum, A1.maximum))}
new_store()
bonus, _ = booted()
bonus.configure("A1")
bonus.reset()
result["unseeded_reset"] = resets(bonus, RESETS)
result["unseeded_boot_us"] = booted()[1]
bonus, _ = booted()
bonus.seed("ab" * 32)
result["seeded_reset"] = resets(bonus, RESETS)
result["seeded_boot_us"] = booted()[1]
clear()
import hashlib, binascii
fixed = drbg.instantiate(bytes(range(32)), bytes(range(16)), b"stream")
stream = hashlib.sha256()
for _ in range(STREAM_BLOCKS):
    stream.update(fixed.generate(4096))
result["stream_bytes"] = 4096 * STREAM_BLOCKS
result["stream_sha256"] = binascii.hexlify(stream.digest()).decode()
print(json.dumps(result))
"""


def bench(resets):
    from uthctl.boards.handoff import hand_to_repl
    from uthctl.boards.pico import PicoBoard

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="uth-bench-pico-drbg-") as tmp:
        log = open(os.path.join(tmp, "board.log"), "w")
        board = PicoBoard(os.path.join(tmp, "pico.img"), realtime=False, stderr=log,
                          image="official")
        with board:
            came = board.wait_started(pico_bench.BOOT_WAIT)
            if came["state"] != "repl":
                raise RuntimeError("a new flash did not come up at the REPL: %s" % came)
            pico_bench.deploy(board, tmp, pico_bench.quiet_seed())
            pico_bench.progress("deployed", started)
            # The running controller's port handed to the REPL (the key held,
            # `repl`): no byte alone stops it.
            hand_to_repl(board.serial_path, board.rig_address, timeout=120.0)
            result = pico_bench.run_script(board.serial_path, tmp, "drbg.py",
                                           CHIP_SCRIPT.replace("RESETS = 9", "RESETS = %d"
                                                               % resets))
        log.close()
    result["resets"] = resets
    result["host_stream_sha256"] = host_stream(result["stream_bytes"] // 4096)
    result["wall_s"] = time.monotonic() - started
    return result


def host_stream(blocks):
    # The chip's fixed stream, made here by the same module on CPython.
    import hashlib

    import uthctl  # noqa: F401 -- the firmware on the path, the micropython shim in
    from mystery import drbg

    fixed = drbg.instantiate(bytes(range(32)), bytes(range(16)), b"stream")
    stream = hashlib.sha256()
    for _ in range(blocks):
        stream.update(fixed.generate(4096))
    return stream.hexdigest()


def print_report(r):
    print("Emulated Pico: the generator's cost (%s)" % pico_bench.MHZ_NOTE)
    print("  health check at start %.1f ms; a draw (reseed, value, salt) %.1f ms, from "
          "os.urandom alone %.1f ms" % (r["health_check_us"] / 1000, r["draw_us"] / 1000,
                                       r["raw_draw_us"] / 1000))
    print("  an input edge's timing noted (LOCK's too): %d us" % r["note_us"])
    for name in ("unseeded", "seeded"):
        m = r[name + "_reset"]
        print("  %-8s a reset, committed: best %.1f, median %.1f, max %.1f ms (%d); a store's "
              "boot %.1f ms" % (name, m["best_us"] / 1000, m["median_us"] / 1000,
                                m["max_us"] / 1000, r["resets"], r[name + "_boot_us"] / 1000))
    print("  %d bytes from fixed inputs: SHA-256 %s on the chip, %s on this host (%s)" % (
        r["stream_bytes"], r["stream_sha256"][:16], r["host_stream_sha256"][:16],
        "the same" if r["stream_sha256"] == r["host_stream_sha256"] else "DIFFERENT"))
    print("  seeded / unseeded reset, median: %.2f" % (
        r["seeded_reset"]["median_us"] / r["unseeded_reset"]["median_us"]))


def main():
    parser = argparse.ArgumentParser(description="the generator's cost on the emulated Pico")
    parser.add_argument("--resets", type=int, default=9, help="resets timed each way")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    result = bench(args.resets)
    print_report(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
