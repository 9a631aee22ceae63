# Figures on the emulated Pico's own clock (`make bench` prints them after the
# unix-port figures): the official MicroPython rp2 image on rp2040js
# (host_tools/uthctl/boards/pico.py), with the project deployed by `make deploy`
# (image_compare.py sets the project's own image beside it).
# Usage: .venv/bin/python bench/pico_bench.py [--hands N] [--wear-rounds N] [--json FILE]
#
# Every time here is an ESTIMATE from the emulator's cycle count at 125 MHz:
# rp2040js runs each instruction in its nominal cycles with no flash wait
# states (XIP cache misses cost nothing) and flash operations take no
# emulated time, so a real Pico is somewhat slower on code run from flash.
# The real flash's erase and program times are modelled apart, from the
# counted operations and the W25Q16JV datasheet (FLASH_* below).
#
# One deploy serves every figure:
# 1. chip scripts (mpremote run, the controller stopped): the evaluator's
#    hands/s and a six-seat settlement, timed with time.ticks_us on the chip;
# 2. flash operations of one round, a hit, a validation and a reset, counted by
#    the emulator (rig state flash_ops) between steps run with mpremote;
# 3. the wear run: N rounds (1,000 by default) with hits validated and reset,
#    driven by a bench-only chip script through the controller's own meter
#    and store (app.build on the board, littlefs as the rp2 image mounts it)
#    rather than through the pins, for speed; its erase count gives the
#    flash's lifetime (flash_wear.py);
# 4. the controller restarted on that flash: LOCK to the committed "locked"
#    event in emulated time, and gc.mem_free() with the controller running,
#    both stamped by the bench-only /boot.py (bench/pico_boot.py).
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import flash_wear  # bench/, beside this script
import heap_report

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SEEDED_BYTES = ROOT / "boards" / "sim" / "seeded_bytes.py"  # the bench boot's seeded source
MPREMOTE = ROOT / ".venv" / "bin" / "mpremote"
BUILD = ROOT / "build" / "rp2040_pico"
BOOT_WAIT = 60.0
SEATS = 6

# Winbond W25Q16JV datasheet (the Pico's 2 MB flash; "3V 16M-bit serial flash
# memory with dual/quad SPI", rev. F, May 2017), AC Electrical Characteristics:
# tSE, sector erase (4 KB), 45 ms typical, 400 ms maximum; tPP, page program
# (256 B), 0.4 ms typical, 3 ms maximum.
FLASH_SECTOR = 4096
FLASH_PAGE = 256
FLASH_ERASE_MS = (45.0, 400.0)
FLASH_PROGRAM_MS = (0.4, 3.0)

GOAL_HANDS_PER_S = 100_000
GOAL_SETTLE_MS = 20.0
GOAL_LOCK_MS = 50.0  # plus the modelled flash time

MHZ_NOTE = ("estimate from the emulator's cycle count at 125 MHz, no flash wait states; "
            "flash operations modelled apart")


# ---- the board ----

def quiet_seed():
    # As vboard_lock.py's: a seed whose first A1 hit value is $190 or more.
    import vboard_lock

    return vboard_lock.quiet_seed()


def mpremote(port, *args, timeout=600):
    done = subprocess.run([str(MPREMOTE), "connect", port, *args], capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError("mpremote %s failed:\n%s%s" % (" ".join(args), done.stdout,
                                                          done.stderr))
    return done.stdout


def last_json(text):
    return json.loads(text.strip().splitlines()[-1])


def boot_text(seed, profile=False):
    # The bench's /boot.py (pico_boot.py) with its seed, and its profile of
    # the LOCK path when asked.
    text = (BENCH / "pico_boot.py").read_text().replace("SEED = 0\n", "SEED = %d\n" % seed)
    return text.replace("PROFILE = False\n", "PROFILE = True\n") if profile else text


def deploy(board, tmp, seed, profile=False):
    # The bench's /boot.py, then the project by the real path (make deploy),
    # whose closing `mpremote reset` restarts the emulation on the saved flash.
    boot = Path(tmp) / "boot.py"
    boot.write_text(boot_text(seed, profile))
    mpremote(board.serial_path, "cp", str(boot), ":boot.py", "+", "cp", str(SEEDED_BYTES),
             ":seeded_bytes.py")
    boots = board.state()["boots"]
    done = subprocess.run(["make", "-C", str(ROOT), "deploy", "BOARD=rp2040_pico",
                           "PORT=" + board.serial_path], capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        raise RuntimeError("make deploy failed:\n" + done.stdout + done.stderr)
    restarted(board, boots, "the deploy")


def restarted(board, boots, after):
    # The restart `mpremote reset` began, waited for until the controller has
    # started. Until then the emulated chip runs /boot.py before its USB is up,
    # and mpremote's Ctrl-C and Ctrl-A wait in the emulator ahead of the line
    # end it adds when the USB comes up: that line end lands in the raw REPL,
    # so mpremote's Ctrl-D runs it instead of soft-resetting, the "soft reboot"
    # it waits for never comes, and mpremote waits on the pty for ever.
    from uthctl.links.rig import Rig

    with Rig(board.rig_address) as rig:
        rig.wait_for(lambda s: s["boots"] == boots + 1 and s["powered"], BOOT_WAIT,
                     what="the restart after %s" % after)
    came = board.wait_started(BOOT_WAIT)
    if came["state"] in (None, "repl"):
        raise RuntimeError("the controller did not start after %s: %s" % (after, came))


def mpy_sizes():
    files = sorted(BUILD.rglob("*.mpy"))
    return {"files": len(files), "bytes": sum(f.stat().st_size for f in files),
            "main_py_bytes": (BUILD / "main.py").stat().st_size}


# ---- 1. chip scripts: evaluator and settlement ----

EVAL_SCRIPT = r"""
import gc, json, time
from uth import evaluator
with open("/bench_hands.bin", "rb") as f:
    data = f.read()
hands = [data[i:i + 7] for i in range(0, len(data), 7)]
del data
score = evaluator.score
def one_pass():
    gc.collect()
    start = time.ticks_us()
    for h in hands:
        score(h, 7)
    return time.ticks_diff(time.ticks_us(), start)
best = min([one_pass() for _ in range(%(repeats)d)])
total = 0
for h in hands:
    total = (total * 31 + score(h, 7)) & 0x3FFFFFFF
print(json.dumps({"kind": evaluator.KIND, "hands": len(hands), "best_us": best,
                  "checksum": total}))
"""

SETTLE_SCRIPT = r"""
import gc, json, time
from uth.settle import settle
round_data = json.loads(%(round)r)
first = settle(round_data)
def timed():
    gc.collect()
    start = time.ticks_us()
    for _ in range(%(calls)d):
        settle(round_data)
    return time.ticks_diff(time.ticks_us(), start)
best = min([timed() for _ in range(%(repeats)d)])
print(json.dumps({"calls": %(calls)d, "best_us": best, "seats": len(first["seats"]),
                  "stable": settle(round_data) == first}))
"""


def checksum(scores):
    # The chip's checksum of its scores, computed here from the unix port's.
    total = 0
    for s in scores:
        total = (total * 31 + s) & 0x3FFFFFFF
    return total


def run_script(port, tmp, name, text):
    path = Path(tmp) / name
    path.write_text(text)
    return last_json(mpremote(port, "run", str(path)))


def chip_eval(port, tmp, hands, repeats):
    path = Path(tmp) / "hands.bin"
    path.write_bytes(b"".join(hands))
    mpremote(port, "cp", str(path), ":/bench_hands.bin")
    found = run_script(port, tmp, "eval.py", EVAL_SCRIPT % {"repeats": repeats})
    mpremote(port, "rm", ":/bench_hands.bin")
    found["hands_per_s"] = found["hands"] * 1e6 / found["best_us"]
    return found


def chip_settle(port, tmp, round_data, calls, repeats):
    found = run_script(port, tmp, "settle.py", SETTLE_SCRIPT % {
        "round": json.dumps(round_data), "calls": calls, "repeats": repeats})
    found["ms_per_round"] = found["best_us"] / found["calls"] / 1000
    return found


# ---- 2. and 3. flash operations per step, and the wear run ----

SETUP_SCRIPT = r"""
import gc, json, time
import board
from table import app
from mystery.meter import PENDING, AWAITING_RESET
from mystery import configs

class Draws:
    # The seeded stream the bench's boot.py installs, or one pattern replayed
    # (LOWEST: the first contribution hits; HIGHEST: no hit this cycle).
    def __init__(self, stream):
        self.stream = stream
        self.pattern = None
    def __call__(self, n):
        if self.pattern is None:
            return self.stream(n)
        return (self.pattern * n)[:n]

LOWEST = b"\x00"
HIGHEST = b"\x27\x0f"
built = board.build()
draws = Draws(built.random_bytes)
built.random_bytes = draws
table, link = app.build(built)
app.start(table, link, time.ticks_ms())
bonus = table.bonus
draws.pattern = LOWEST
bonus.configure("A1")
bonus.reset()
SEATS = [(n, True, configs.get("A1").min_wager_cents) for n in range(1, %(seats)d + 1)]

def say(step):
    print(json.dumps({"step": step, "phase": bonus.meter.phase, "hits": bonus.meter.hits}))
say("configured")
"""

STEPS = (
    # (name, chip code); flash operations are counted around each
    ("hit", 'draws.pattern = HIGHEST\nbonus.lock_round(SEATS)\nsay("hit")'),
    ("validation", 'bonus.validate("jackpot_slip")\nsay("validation")'),
    ("reset", 'bonus.reset()\nsay("reset")'),
    ("round", 'bonus.lock_round(SEATS)\nsay("round")'),
)

WEAR_SCRIPT = r"""
draws.pattern = None  # the seeded stream from here: hits as they come
hits = 0
start = time.ticks_ms()
for _ in range(%(rounds)d):
    if bonus.meter.phase == AWAITING_RESET:
        bonus.reset()
    bonus.lock_round(SEATS)
    if bonus.meter.phase == PENDING:
        hits += 1
        bonus.validate("jackpot_slip")
        bonus.reset()
elapsed = time.ticks_diff(time.ticks_ms(), start)
free = gc.mem_free()
gc.collect()
print(json.dumps({"rounds": %(rounds)d, "hits": hits, "meter_hits": bonus.meter.hits,
                  "phase": bonus.meter.phase, "emulated_ms": elapsed,
                  "mem_free": free, "mem_free_collected": gc.mem_free()}))
"""


def flash_counts(rig):
    s = rig.state()
    return {"erase": s["flash_ops"]["erase"], "program": s["flash_ops"]["program"],
            "erase_bytes": s["flash_bytes"]["erase"],
            "program_bytes": s["flash_bytes"]["program"]}


def diff(after, before):
    return {key: after[key] - before[key] for key in after}


def settle_flash(rig):
    # Flash lines reach the supervisor on their own socket, a little after
    # the operation: read the counts once they have stopped changing.
    last = flash_counts(rig)
    while True:
        time.sleep(0.3)
        now = flash_counts(rig)
        if now == last:
            return now
        last = now


def flash_steps(board, tmp, rounds):
    # Each step in its own mpremote call (`resume`: the same interpreter, no
    # soft reset) so the emulator's counts can be read between them.
    from uthctl.boards.handoff import hand_to_repl
    from uthctl.links.rig import Rig

    port = board.serial_path
    # The running controller's port handed to the REPL, as a technician gets
    # it (the key held, `repl`): no byte alone stops the controller.
    hand_to_repl(port, board.rig_address, timeout=120.0)
    with Rig(board.rig_address) as rig:
        run_script(port, tmp, "setup.py", SETUP_SCRIPT % {"seats": SEATS})
        steps = {}
        for name, code in STEPS:
            before = settle_flash(rig)
            said = last_json(mpremote(port, "resume", "exec", code))
            steps[name] = dict(diff(settle_flash(rig), before), phase=said["phase"])
        before = settle_flash(rig)
        wear = last_json(mpremote(port, "resume", "exec", WEAR_SCRIPT % {"rounds": rounds},
                                  timeout=3600))
        wear["flash"] = diff(settle_flash(rig), before)
        if board.state()["boots"] != 1 + 1:
            raise RuntimeError("the board restarted during the wear run")
    return steps, wear


def commit_model(ops):
    # Real flash time of the operations counted: sectors erased x tSE plus
    # pages programmed x tPP, typical and maximum.
    sectors = ops["erase_bytes"] / FLASH_SECTOR
    pages = ops["program_bytes"] / FLASH_PAGE
    return {"sectors": sectors, "pages": pages,
            "typ_ms": sectors * FLASH_ERASE_MS[0] + pages * FLASH_PROGRAM_MS[0],
            "max_ms": sectors * FLASH_ERASE_MS[1] + pages * FLASH_PROGRAM_MS[1]}


# ---- 4. LOCK to "locked" with the controller running ----

def set_all(rig, pins, level):
    # The six chips placed (or lifted) together: the requests go out at once
    # and the answers are read after, so the chip sees them within a tick
    # even when the emulator lags the wall clock (the rig spaces levels in
    # emulated time as they were spaced on the wall clock).
    rig.sock.sendall(b"".join(json.dumps({"op": "set", "pin": pin, "level": level}).encode()
                              + b"\n" for pin in pins))
    for _ in pins:
        reply = json.loads(rig._line())
        if not reply.get("ok"):
            raise RuntimeError("rig refused a set: %s" % reply)


def configure(board, name="A1"):
    # The mystery configured as a technician does it, in service mode through
    # the host link: a new flash is unconfigured, and LOCK there locks nothing.
    from uthctl.links.board_link import Link
    from uthctl.links.rig import Rig

    with Link(board.serial_path, timeout=120.0) as link, Rig(board.rig_address,
                                                                timeout=120.0) as rig:
        link.wait_ready(timeout=60.0)
        rig.key(True)
        _wait_state(link, lambda state: state == "service", "service mode")
        reply = link.command("config", mystery=name)
        if not reply.get("ok"):
            raise RuntimeError("config refused: %s" % reply)
        link.wait_event("reset")
        rig.key(False)
        _wait_state(link, lambda state: state != "service", "service mode left")


def _wait_state(link, test, what):
    deadline = time.monotonic() + BOOT_WAIT
    while not test(link.command("status").get("state")):
        if time.monotonic() > deadline:
            raise RuntimeError("no %s within %.0f s" % (what, BOOT_WAIT))
        time.sleep(0.1)


def lock_rounds(board, count):
    # Host waits add emulated time before the next level (the rig keeps
    # wall-clock spacing), so a round sends its levels in one go where it can:
    # chips on, 0.1 s, LOCK; then LOCK off and chips off together.
    from uthctl.links.board_link import Link
    from uthctl.links.rig import Rig

    chips = ["bet%d" % seat for seat in range(1, SEATS + 1)]
    ms, ops, free, each = [], [], [], []
    with Link(board.serial_path, timeout=120.0) as link, Rig(board.rig_address,
                                                                timeout=120.0) as rig:
        link.wait_ready(timeout=60.0)
        for _ in range(count):
            before = flash_counts(rig)
            link.events.clear()
            set_all(rig, chips, 1)
            time.sleep(0.1)  # longer than the sensors' 30 ms debounce, on the chip too
            set_all(rig, ["lock"], 1)
            link.wait_event("locked")
            clock = link.wait_event("bench_clock")
            state = rig.state()
            # ticks_us wraps at 2**30 us: the difference modulo that.
            edge_us = state["inputs_ns"]["lock"] // 1000
            ms.append(((clock["locked_us"] - edge_us) % (1 << 30)) / 1000)
            free.append((clock["mem_free"], clock["mem_free_collected"]))
            ops.append(diff(settle_flash(rig), before))
            each.append({"ms": ms[-1], "flash": ops[-1], "hit": any(state["jackpot_lights"])})
            if "profile" in clock:  # the bench /boot.py's PROFILE: the path's steps
                each[-1].update(profile=clock["profile"], alloc_drop=clock["alloc_drop"],
                                gc_us=clock["gc_us"],
                                tick_wait_us=(clock["tick_us"] - edge_us) % (1 << 30),
                                tick_to_locked_us=(clock["locked_us"] - clock["tick_us"])
                                % (1 << 30))
            set_all(rig, ["lock"] + chips, 0)
            if any(state["jackpot_lights"]):  # a hit: validated with the key, as a floor would
                set_all(rig, ["key"], 1)
                time.sleep(0.1)
                set_all(rig, ["key"], 0)
                link.wait_event("reset")
            rig.wait_for(lambda s: not any(s["bet_lights"]), 120.0, what="betting again")
    return {"rounds": count, "lock_to_locked_ms": {"best": min(ms), "median":
                                                   statistics.median(ms), "max": max(ms)},
            "flash_per_round": {key: statistics.mean(o[key] for o in ops) for key in ops[0]},
            "mem_free": {"min": min(f for f, _ in free),
                         "collected_min": min(c for _, c in free)},
            "each": each}


def progress(text, started):
    print("  [emulated Pico, %4.0f s] %s" % (time.monotonic() - started, text),
          file=sys.stderr, flush=True)


# ---- all of it ----

def bench(hands, settle_round, repeats=7, settle_calls=10, wear_rounds=1000, lock_count=5):
    from uthctl.boards.pico import PicoBoard

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="uth-bench-pico-") as tmp:
        log = open(os.path.join(tmp, "board.log"), "w")
        board = PicoBoard(os.path.join(tmp, "pico.img"), realtime=False, stderr=log,
                          image="official")
        with board:
            came = board.wait_started(BOOT_WAIT)
            if came["state"] != "repl":
                raise RuntimeError("a new flash did not come up at the REPL: %s" % came)
            deploy(board, tmp, quiet_seed())
            progress("deployed", started)
            result = {"mpy": mpy_sizes(), "repeats": repeats}
            steps, wear = flash_steps(board, tmp, wear_rounds)
            result["flash_steps"] = steps
            result["wear_run"] = wear
            progress("flash steps and the %d-round wear run done" % wear_rounds, started)
            result["evaluator"] = chip_eval(board.serial_path, tmp, hands, repeats)
            result["settle"] = chip_settle(board.serial_path, tmp, settle_round, settle_calls,
                                           repeats)
            progress("evaluator and settlement done", started)
            result["heap"] = last_json(mpremote(board.serial_path, "run",
                                                str(BENCH / "heap_census.py")))
            board.reset()
            came = board.wait_started(BOOT_WAIT)
            if came["state"] in (None, "repl"):
                raise RuntimeError("the controller did not restart: %s" % came)
            result["lock"] = lock_rounds(board, lock_count)
            progress("LOCK rounds done", started)
        log.close()
    result["commit_model"] = commit_model(result["flash_steps"]["round"])
    result["lock_commit_model"] = commit_model(result["lock"]["flash_per_round"])
    result["wear"] = flash_wear.lifetime(wear["flash"]["erase_bytes"] / FLASH_SECTOR,
                                         wear["rounds"])
    result["wall_s"] = time.monotonic() - started
    return result


# ---- the report ----

def print_report(r, unix=None):
    print("Emulated Pico (official MicroPython rp2 image on rp2040js; project by make deploy):")
    print("  every time below is an %s." % MHZ_NOTE)
    e = r["evaluator"]
    line = "  evaluator (%s): {:,.0f} hands/s, best of %d passes over %d hands".format(
        e["hands_per_s"]) % (e["kind"], r.get("repeats", 7), e["hands"])
    print(line + (" (goal >= {:,})".format(GOAL_HANDS_PER_S)))
    if unix:
        print("    unix port, this run: {:,.0f} hands/s; the chip's scores agree with it: {}"
              .format(unix["hands_per_s"], "yes" if unix["checksum"] == e["checksum"]
                      else "NO"))
    s = r["settle"]
    print("  six-seat settlement: %.1f ms per round, best of %d x %d calls (goal <= %.0f ms)%s"
          % (s["ms_per_round"], r.get("repeats", 7), s["calls"], GOAL_SETTLE_MS,
             "" if s["stable"] else "; UNSTABLE"))
    if unix:
        print("    unix port: %.3f ms per round" % unix["settle_ms"])
    lock = r["lock"]
    m, model = lock["lock_to_locked_ms"], r["lock_commit_model"]
    print("  LOCK edge on the pin -> \"locked\" written, %d rounds at %d seats: best %.1f,"
          " median %.1f, max %.1f ms" % (lock["rounds"], SEATS, m["best"], m["median"],
                                         m["max"]))
    print("    plus the modelled flash time of its operations: %.0f ms typical, %.0f ms"
          " maximum" % (model["typ_ms"], model["max_ms"]))
    print("    (goal: within %.0f ms plus that flash time)" % GOAL_LOCK_MS)
    print("  flash operations (erases / programs; sectors erased / 256 B pages programmed):")
    for name in ("round", "hit", "validation", "reset"):
        o = r["flash_steps"][name]
        print("    %-28s %3d / %3d   %5.1f / %5.1f" % (
            "a round without a hit" if name == "round" else
            "a round that hits" if name == "hit" else "a " + name,
            o["erase"], o["program"], o["erase_bytes"] / FLASH_SECTOR,
            o["program_bytes"] / FLASH_PAGE))
    f = lock["flash_per_round"]
    print("    %-28s %5.1f / %5.1f" % ("rounds via the pins (mean)", f["erase"], f["program"]))
    c = r["commit_model"]
    print("  modelled real flash time of one round's commit (W25Q16JV: 4 KB sector erase"
          " %.0f/%.0f ms," % FLASH_ERASE_MS)
    print("    page program %.1f/%.0f ms typ/max): %.1f sectors, %.1f pages -> %.0f ms typical,"
          " %.0f ms maximum" % (FLASH_PROGRAM_MS + (c["sectors"], c["pages"], c["typ_ms"],
                                                    c["max_ms"])))
    w = r["wear_run"]
    print("  wear run: %d rounds, hits validated and reset: %d (bench-only chip script through"
          % (w["rounds"], w["hits"]))
    print("    the controller's meter and store): %d erases, %d programs; %.1f s emulated"
          % (w["flash"]["erase"], w["flash"]["program"], w["emulated_ms"] / 1000))
    print("    gc.mem_free() after it: %d bytes (%d after gc.collect())"
          % (w["mem_free"], w["mem_free_collected"]))
    print("  gc.mem_free() with the controller running on that flash, at each \"locked\":"
          " min %d bytes, %d after gc.collect()" % (lock["mem_free"]["min"],
                                                    lock["mem_free"]["collected_min"]))
    heap_report.print_census("heap (bench/heap_census.py)", r["heap"])
    flash_wear.print_report(r["wear"])
    m = r["mpy"]
    print("  deployed build: %d .mpy files, %s bytes (build/rp2040_pico/lib), main.py %d bytes"
          % (m["files"], "{:,}".format(m["bytes"]), m["main_py_bytes"]))
    print("  (the emulated Pico's part took %.0f s of wall time)" % r["wall_s"])


def parse_args():
    parser = argparse.ArgumentParser(description="figures on the emulated Pico's clock")
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=653)
    parser.add_argument("--wear-rounds", type=int, default=1000)
    parser.add_argument("--json", metavar="FILE")
    return parser.parse_args()


def main():
    import workload

    args = parse_args()
    hands = workload.make_hands(args.hands, args.seed)
    result = bench(hands, workload.SETTLE_ROUND, wear_rounds=args.wear_rounds)
    print_report(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
