# Things that take turns at a steady pace: a bet light's blink (Turns), the
# display's meter and its "hit bY" maximum (Rotation). The turn is kept by counting
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


class Rotation:
    # Several things in turn, each for its own time: the display's meter, then
    # "hit bY", then the maximum. Kept as Turns keeps its pace, across the wrap.
    def __init__(self, periods_ms, now):
        self.periods_ms = periods_ms
        self.turn = 0  # the index of the thing whose turn it is
        self.began = now

    def poll(self, now):
        elapsed = ticks_diff(now, self.began)
        period = self.periods_ms[self.turn]
        if elapsed >= period or elapsed < 0:
            self.turn = (self.turn + 1) % len(self.periods_ms)
            if 0 <= elapsed - period < self.periods_ms[self.turn]:
                self.began = ticks_add(self.began, period)  # keep the pace
            else:
                self.began = now  # polls stopped for a while: start afresh
        return self.turn
