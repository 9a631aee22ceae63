# Two things that take turns at a steady pace: the display's meter and its
# "must hit by" amount, a bet light's blink. The turn is kept by counting
# elapsed ticks from one poll to the next, never as `now // period`: ticks_ms
# wraps at 2**30, which no period divides, so a phase read off the ticks
# themselves jumps there. Polled every tick, an interval here is never long.
from .clock import ticks_add, ticks_diff


class Turns:
    def __init__(self, period_ms, now):
        self.period_ms = period_ms
        self.first = True  # whose turn: the first thing's, or the second's
        self.began = now  # when the present turn began

    def poll(self, now):
        # True while it is the first thing's turn.
        elapsed = ticks_diff(now, self.began)
        if elapsed >= self.period_ms or elapsed < 0:
            self.first = not self.first
            if 0 <= elapsed < 2 * self.period_ms:
                self.began = ticks_add(self.began, self.period_ms)  # keep the pace
            else:
                self.began = now  # polls stopped for a while: start afresh
        return self.first
