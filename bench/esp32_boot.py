# BENCH ONLY, never part of the project's build: bench/esp32_lock.py puts this
# in place of the line `standin.install()` of the emulated ESP32's /boot.py
# (boards/esp32_qemu/boot.py), so the stand-ins are installed here, after the
# remount. As bench/pico_boot.py does on the emulated Pico, each "locked"
# line the controller sends is followed by a line {"ev": "bench_clock",
# "lock_us": L, "locked_us": T, "mem_free": M, "mem_free_collected": C}:
# L is time.ticks_us() when the controller's read of LOCK took the level in
# (the stand-in applies the wire's levels when the controller reads an input,
# so the emulated pin changes at that read), T the same just before the
# "locked" line was written, M and C gc.mem_free() with the controller
# running, before and after a gc.collect() made after the stamps. The
# controller's own behaviour is unchanged.
import gc
import time

_lock_us = [0]
_init = standin.InputPin.__init__  # noqa: F821 -- boot.py imported it


def _stamped_init(self, wire, name):
    _init(self, wire, name)
    if name != "lock":
        return
    apply_level = wire.inputs[name]

    def stamped(level):
        if level and not self.level:
            _lock_us[0] = time.ticks_us()
        apply_level(level)
    wire.inputs[name] = stamped


standin.InputPin.__init__ = _stamped_init  # noqa: F821
standin.install()  # noqa: F821

import board  # noqa: E402

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
        gc.collect()
        write('{"ev": "bench_clock", "lock_us": %d, "locked_us": %d, "mem_free": %d, '
              '"mem_free_collected": %d}' % (_lock_us[0], at, free, gc.mem_free()))
    return write_line


def _bench_build():
    built = _build()
    built.serial.write_line = _stamped(built.serial.write_line)
    return built


board.build = _bench_build
