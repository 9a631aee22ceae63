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
import gc
import time

import board
from seeded_bytes import SeededBytes  # boards/sim/seeded_bytes.py, copied beside it

SEED = 0
_LOCKED = '"ev": "locked"'  # json.dumps keeps no key order on MicroPython

_build = board.build


def _stamped(write):
    def write_line(text):
        if _LOCKED not in text:
            write(text)
            return
        at = time.ticks_us()
        write(text)
        free = gc.mem_free()
        gc.collect()  # after the stamp: what the controller holds, its garbage gone
        write('{"ev": "bench_clock", "locked_us": %d, "mem_free": %d, "mem_free_collected": %d}'
              % (at, free, gc.mem_free()))
    return write_line


def _bench_build():
    built = _build()
    built.random_bytes = SeededBytes(SEED)
    built.serial.write_line = _stamped(built.serial.write_line)
    return built


board.build = _bench_build
