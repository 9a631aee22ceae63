# BENCH ONLY, never part of the project's build: copied to the emulated
# Pico's flash as /boot.py by bench/pico_bench.py, which writes the seed in
# the line below. boot.py runs before main.py in one interpreter, so main.py's
# `import board` finds the module as changed here. Two changes:
# - the controller's random source (os.urandom) becomes the seeded stream of
#   the virtual board's tests (boards/sim/board.py, UTH_SIM_SEED), so the
#   bench picks a seed whose first hit value is high and no LOCK stops play;
# - each "locked" line the controller sends is followed by a line
#   {"ev": "bench_clock", "locked_us": T, "mem_free": M, "mem_free_collected":
#   C}: T is time.ticks_us() just before the "locked" line was written (the
#   chip's clock, which the emulator keeps from power-on), M gc.mem_free()
#   with the controller running, C the same after a gc.collect() made after
#   the stamp. The controller's own behaviour is unchanged.
# - with PROFILE set (bench/pico_lock_key.py sets it), that line also carries
#   "profile": the time in us (ticks_us) the round's LOCK spent in each step
#   of its path, each step's function wrapped here (a few tens of us the
#   wrappers themselves), "tick_us": when the tick that took the edge began,
#   "alloc_drop": whether gc.mem_alloc() fell between that tick and the stamp
#   (a collection ran inside the locked path), and "gc_us" the time of the
#   collection made after the stamp.
import gc
import time

import board
from seeded_bytes import SeededBytes  # boards/sim/seeded_bytes.py, copied beside it

SEED = 0
PROFILE = False
_LOCKED = '"ev": "locked"'  # json.dumps keeps no key order on MicroPython

_build = board.build


_spent = {}  # step -> us, this round
_tick = [0, 0]  # [ticks_us, gc.mem_alloc()] as the latest tick began


def _timed(name, function):
    def timed(*args, **kwargs):
        start = time.ticks_us()
        try:
            return function(*args, **kwargs)
        finally:
            _spent[name] = _spent.get(name, 0) + time.ticks_diff(time.ticks_us(), start)
    return timed


def _wrap(owner, attribute, name):
    setattr(owner, attribute, _timed(name, getattr(owner, attribute)))


def _ticking(tick):
    def timed_tick(self, now):
        _tick[0] = time.ticks_us()
        _tick[1] = gc.mem_alloc()
        _spent.clear()  # a LOCK is taken and committed within one tick
        tick(self, now)
    return timed_tick


def _profile():
    import sys

    from mystery import bonus, chain, copies, eventlog, store
    from table import controller

    controller.Table.tick = _ticking(controller.Table.tick)
    _wrap(controller.Table, "_lock_round", "lock")
    _wrap(bonus.MysteryBonus, "_writable", "room_check")
    _wrap(eventlog.Log, "measure_room", "room_measure")
    _wrap(chain, "link", "link")
    _wrap(eventlog.Log, "append", "log_append")
    _wrap(copies.Pair, "replace", "copy_replace")
    _wrap(copies.Pair, "put", "copy_put")  # the meter record's write (store.py)
    commit = store.Store.commit

    def timed_commit(*args, **kwargs):
        keyed = sys.modules.get("mystery.record_mac")  # loaded with the key
        if keyed is not None and not hasattr(keyed, "_timed"):
            keyed._timed = True
            _wrap(keyed, "record_auth", "auth")
        return commit(*args, **kwargs)
    store.Store.commit = _timed("commit", timed_commit)


def _stamped(write):
    def write_line(text):
        if _LOCKED not in text:
            write(text)
            return
        at = time.ticks_us()
        alloc = gc.mem_alloc()
        write(text)
        free = gc.mem_free()
        start = time.ticks_us()
        gc.collect()  # after the stamp: what the controller holds, its garbage gone
        took = time.ticks_diff(time.ticks_us(), start)
        extra = ""
        if PROFILE:
            extra = ', "profile": {%s}, "tick_us": %d, "alloc_drop": %d, "gc_us": %d' % (
                ", ".join('"%s": %d' % item for item in _spent.items()), _tick[0],
                alloc < _tick[1], took)
        write('{"ev": "bench_clock", "locked_us": %d, "mem_free": %d, "mem_free_collected": %d%s}'
              % (at, free, gc.mem_free(), extra))
    return write_line


def _bench_build():
    built = _build()
    built.random_bytes = SeededBytes(SEED)
    built.serial.write_line = _stamped(built.serial.write_line)
    return built


board.build = _bench_build
if PROFILE:
    _profile()
