# The time from LOCK to the committed contributions, on the virtual board
# (`make bench` prints it after the evaluator and settlement figures).
# Usage: .venv/bin/python bench/vboard_lock.py [--rounds N] [--signed] [--json FILE]
#
# --signed: each figure twice, without a record key and with one (given in
# service mode before the rounds, so every commit signs its records), and
# the ratios of their medians (docs/benchmarks.md, "The record key's cost").
#
# Two figures, reported and never asserted:
#
# 1. End to end, on the host. `uthctl sim --headless` runs the supervisor in a
#    process of its own (temporary flash image; a TEST-ONLY seed whose first
#    hit value is high, so no round hits and every LOCK locks a round).
#    Configured A1, chips on all six seats; each round is timed from sending
#    the rig's {"op": "set", "pin": "lock", "level": 1} to reading the
#    "locked" event on the serial link, which the firmware sends only after
#    the commit has returned. Then LOCK is released, the chips are taken away
#    (the table is betting again) and put back, untimed.
# 2. The commit alone, in the firmware's interpreter: a MicroPython unix-port
#    run (the Pico's heap, 32-bit) times MysteryBonus.lock_round for six
#    qualifying seats (the meter, then Store.commit: a log append, a meter
#    record written and renamed) with time.ticks_us, on littlefs over the
#    virtual board's image-file device (boards/sim/simboot.py FileFlash) and
#    over a RAM flash (tests/logic/ramflash.py; that heap plus its 128 KB).
import argparse
import json
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from uthctl.boards import heaps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
SEATS = 6
PICO_HEAP = heaps.budget("rp2040_pico")  # its board file's (uthctl/boards/heaps.py)
BOARD_HEAP = heaps.heapsize(PICO_HEAP)
RAM_BLOCKS = 32  # x 4 KB: the RAM flash's size, outside the board's heap
START_TIMEOUT = 15.0
EVENT_TIMEOUT = 5.0
RECORD_KEY = "5e" * 32  # the bench's record key (--signed)

WHAT = """\
  Timed on the host (perf_counter): from sending the rig's set of the LOCK level to
  reading the "locked" event, which the firmware sends after the commit returns. In it:
  the rig request over loopback TCP to the supervisor (its own process), the level sent
  on the board's pin wire, the wait for the board's next 5 ms table tick (0-5 ms), the
  LOCK edge (the 30 ms debounce does not delay a press: the first edge acts at once, the
  pin is then ignored for 30 ms), the commit, the event written to stdout, and the
  supervisor's pty relay to pyserial. (The rig's own answer is no split point: the board
  echoes the rig's sync just before the commit, but that echo can reach the host after
  the event.) The commit alone is timed below, inside the firmware's interpreter."""

COMMIT_SCRIPT = r"""
import gc, json, os, sys, time
from mystery.bonus import MysteryBonus
from mystery.store import Store

def high(n):
    # A1's highest hit value, $199.99: no round hits.
    return (b"\x27\x0f" * 9)[:n]

def rounds(root, count):
    bonus = MysteryBonus(Store(root), high)
    bonus.boot()
    bonus.configure("A1")
    bonus.reset()
    if %(key)r:
        bonus.provision(%(key)r)  # every commit from here signs its records
    seats = [(n, True, 100) for n in range(1, %(seats)d + 1)]
    times = []
    for _ in range(count):
        start = time.ticks_us()
        bonus.lock_round(seats)
        times.append(time.ticks_diff(time.ticks_us(), start))
    return times

if sys.argv[-1] == "file":
    import simboot
    path = %(image)r
    simboot.new_image(path)
    os.mount(os.VfsLfs2(simboot.FileFlash(path)), "/flash")
    os.mkdir("/flash/meter")
    times = rounds("/flash/meter", %(rounds)d)
else:
    from ramflash import RamFlash, new_chip
    device = RamFlash(new_chip(%(blocks)d))
    os.VfsLfs2.mkfs(device)
    os.mount(os.VfsLfs2(device), "/ram")
    os.mkdir("/ram/meter")
    times = rounds("/ram/meter", %(rounds)d)
print(json.dumps(times))
"""


def parse_args():
    parser = argparse.ArgumentParser(description="LOCK to committed contributions, "
                                     "virtual board")
    parser.add_argument("--rounds", type=int, default=30, help="rounds timed (default 30)")
    parser.add_argument("--signed", action="store_true",
                        help="measure without and with a record key, and their ratios")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    return parser.parse_args()


def quiet_seed():
    # A seed whose first A1 hit value is $190 or more: 30 six-seat rounds add $3.60.
    import uthctl  # noqa: F401 - the micropython shim, before the firmware's modules
    from mystery import configs, hitvalue
    from uthctl.boards.virtual import seeded_bytes

    a1 = configs.get("A1")
    for seed in range(1, 100_000):
        value, _ = hitvalue.draw(seeded_bytes(seed), a1.minimum, a1.maximum)
        if value >= 190 * configs.MICROS_PER_DOLLAR:
            return seed
    raise RuntimeError("no quiet seed")


def summary(values):
    return {"best": min(values), "median": statistics.median(values), "max": max(values),
            "n": len(values)}


# ---- 1. end to end, on the host ----


def start_supervisor(flash, seed):
    command = [sys.executable, "-m", "uthctl.cli", "sim", "--headless", "--flash", flash,
               "--test-seed", str(seed)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT)
    if not ready:
        stop_supervisor(proc)
        raise RuntimeError("uthctl sim --headless printed nothing in %.0f s" % START_TIMEOUT)
    line = proc.stdout.readline()
    try:
        return proc, json.loads(line)
    except ValueError:
        stop_supervisor(proc)
        raise RuntimeError("uthctl sim --headless: %r" % line) from None


def stop_supervisor(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    proc.stdout.close()
    proc.stderr.close()


def time_rounds(addresses, rounds, key=None):
    from uthctl.links.board_link import Link
    from uthctl.links.rig import Rig, lit

    seats = list(range(1, SEATS + 1))
    times = {"lock_to_locked": []}
    with Link(addresses["serial"], timeout=EVENT_TIMEOUT) as link, \
            Rig(addresses["rig"]) as rig:
        link.wait_ready()
        rig.key(True)
        rig.wait_for(lambda s: s["display"] == "SErvICE", what="service mode")
        reply = link.command("config", mystery="A1")
        if not reply.get("ok"):
            raise RuntimeError("config refused: %s" % reply)
        if key is not None and not link.command("provision", key=key).get("ok"):
            raise RuntimeError("provision refused")
        rig.key(False)
        link.wait_event("reset")
        for number in range(1, rounds + 1):
            for seat in seats:
                rig.chip(seat, True)
            rig.wait_for(lambda s: lit(s["bet_lights"]) == seats, what="chips on, betting")
            time.sleep(0.05)  # no other traffic in flight
            link.events.clear()
            start = time.perf_counter()
            rig.set("lock", 1)
            locked = link.wait_event("locked")
            end = time.perf_counter()
            if locked["round"] != number:
                raise RuntimeError("locked the wrong round: %s" % locked)
            times["lock_to_locked"].append((end - start) * 1e3)
            for _ in seats:
                link.wait_event("contribution")
            rig.set("lock", 0)
            for seat in seats:
                rig.chip(seat, False)
            rig.wait_for(lambda s: not any(s["bet_lights"]), what="betting again")
        meters = link.command("meters")["meters"]
    if meters["round"] != rounds or meters["phase"] != "running":
        raise RuntimeError("the board did not lock every round: %s" % meters)
    return {name: summary(values) for name, values in times.items()}


# ---- 2. the commit alone, in the firmware's interpreter ----


def time_commit(tmp, rounds, key=None):
    script = COMMIT_SCRIPT % {"seats": SEATS, "rounds": rounds, "blocks": RAM_BLOCKS,
                              "image": os.path.join(tmp, "commit.img"), "key": key}
    found = {}
    for device, heap, path in (
            ("file", BOARD_HEAP, [os.path.join(ROOT, "firmware"),
                                  os.path.join(ROOT, "boards", "sim")]),
            ("ram", heaps.heapsize(PICO_HEAP + RAM_BLOCKS * 4096), [os.path.join(ROOT, "firmware"),
                                                     os.path.join(ROOT, "tests", "logic")])):
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(path))
        done = subprocess.run([MICROPYTHON, "-X", "heapsize=" + heap, "-c", script, device],
                              cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError("commit timing on %s failed:\n%s%s"
                               % (device, done.stdout, done.stderr))
        found[device] = summary([us / 1000 for us in
                                 json.loads(done.stdout.strip().splitlines()[-1])])
        found[device]["heap"] = heap
    return found


# ---- both, and the report ----


def bench(rounds=30, key=None):
    seed = quiet_seed()
    with tempfile.TemporaryDirectory(prefix="uth-bench-lock-") as tmp:
        proc, addresses = start_supervisor(os.path.join(tmp, "flash.img"), seed)
        try:
            host = time_rounds(addresses, rounds, key)
        finally:
            stop_supervisor(proc)
        commit = time_commit(tmp, rounds, key)
    return {"rounds": rounds, "seats": SEATS, "config": "A1", "signed": key is not None,
            "host_ms": host, "commit_ms": commit}


def ratios(unsigned, signed):
    # Each figure's median with the key over its median without.
    pairs = [("lock_to_locked", unsigned["host_ms"]["lock_to_locked"],
              signed["host_ms"]["lock_to_locked"])]
    pairs += [("commit_" + device, unsigned["commit_ms"][device], signed["commit_ms"][device])
              for device in ("file", "ram")]
    return {name: after["median"] / before["median"] for name, before, after in pairs}


def print_report(r):
    print("Virtual board: LOCK to the committed contributions (%d rounds, %d seats, %s%s)"
          % (r["rounds"], r["seats"], r["config"],
             ", every record signed with a record key" if r.get("signed") else ""))
    print(WHAT)
    print("  %-36s %8s %8s %8s" % ("", "best", "median", "max"))
    s = r["host_ms"]["lock_to_locked"]
    print("  %-36s %5.2f ms %5.2f ms %5.2f ms"
          % ("LOCK set -> \"locked\" event", s["best"], s["median"], s["max"]))
    print("  The commit alone (MysteryBonus.lock_round, 6 seats; ticks_us in the unix port):")
    for key, label in (("file", "littlefs, sim image file"), ("ram", "littlefs, RAM flash")):
        s = r["commit_ms"][key]
        print("  %-36s %5.2f ms %5.2f ms %5.2f ms  (heap %s)"
              % ("  " + label, s["best"], s["median"], s["max"], s["heap"]))


def main():
    args = parse_args()
    result = bench(args.rounds)
    print_report(result)
    if args.signed:
        signed = bench(args.rounds, RECORD_KEY)
        print()
        print_report(signed)
        result = {"unsigned": result, "signed": signed, "ratios": ratios(result, signed)}
        print("\nmedian with the key / without: " + ", ".join(
            "%s %.2f" % item for item in result["ratios"].items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
        print("\nfigures written to %s" % args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
