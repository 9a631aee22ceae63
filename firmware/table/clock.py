# Millisecond ticks as MicroPython keeps them: they wrap at 2**30 (about 12
# days), so intervals are taken with ticks_diff, never by plain subtraction.
# Written out here so the controller's logic runs the same on CPython.
from micropython import const

_PERIOD = const(1 << 30)
_HALF = const(1 << 29)


def ticks_diff(later, earlier):
    return ((later - earlier + _HALF) & (_PERIOD - 1)) - _HALF


def ticks_add(ticks, delta):
    return (ticks + delta) & (_PERIOD - 1)
