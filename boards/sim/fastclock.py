# The virtual board's clock for a soak: RATE times the host's, so the
# controller's 5 ms ticks, 30 ms debounce and 250 ms clear pass RATE times
# faster in the host's time while the controller counts them as ever. The
# supervisor chooses it for soak runs only (UTH_SIM_RATE); without it the
# board runs on the system clock, as every real board does (table/app.py).
#
#   ticks_ms()    wraps at 2**30 as MicroPython's does; kept from the host's
#                 microsecond ticks a step at a time (those wrap every 18
#                 minutes), so it is right at any uptime while it is read
#                 every tick
#   sleep_ms(ms)  lets the other tasks run, then waits in the host's time for
#                 the earliest wake-up of every task sleeping on this clock:
#                 asyncio's own idle wait, RATE times shorter (asyncio's
#                 timer counts whole host milliseconds, too coarse for a 5 ms
#                 tick at RATE 30)
import asyncio
import time

from micropython import const

_PERIOD = const(1 << 30)
_OVERSLEEP_US = const(100)


class FastClock:
    def __init__(self, rate):
        if not (type(rate) is int and rate >= 1):
            raise ValueError("clock rate must be a whole number, 1 or more")
        self.rate = rate
        self.last_us = time.ticks_us()
        self.micros = time.ticks_ms() * 1000  # this clock's microseconds, never wrapped
        self.wakes = []  # when each sleeping task wakes, in this clock's microseconds

    def _advance(self):
        now = time.ticks_us()
        self.micros += time.ticks_diff(now, self.last_us) * self.rate
        self.last_us = now
        return self.micros

    def ticks_ms(self):
        return (self._advance() // 1000) & (_PERIOD - 1)

    async def sleep_ms(self, ms):
        wake = self._advance() + ms * 1000
        self.wakes.append(wake)
        try:
            while True:
                await asyncio.sleep_ms(0)  # the other tasks take their turn
                now = self._advance()
                if now >= wake:
                    return
                # Every task sleeps: wait for the first to wake, in the host's
                # time, less the host's oversleep (its timer slack, the loop's
                # turn), which is spent in turns of the loop instead.
                wait = (min(self.wakes) - now) // self.rate - _OVERSLEEP_US
                if wait > 0:
                    time.sleep_us(wait)
        finally:
            self.wakes.remove(wake)
