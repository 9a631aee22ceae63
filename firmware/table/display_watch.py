# The LED meter watched (13:69E-1.39A(b)(2), 1.39B(g): a failed progressive
# display is detected, and the table does not play on as if it were shown).
# A display that can tell (the TM1637: show() and check() say whether the
# chip acknowledged every byte) is checked each time it is written and once
# a period besides; a display with no readback (the MAX7219, whose show()
# gives None) is unsensed, and never faults here (docs/boards.md says what
# it would take to sense it).
#
# A frame not acknowledged raises the fault at once; it clears only after
# CLEAR_CHECKS frames in a row are acknowledged, so a flickering wire makes
# one raise and one clear, not one a tick.
from micropython import const

from .clock import ticks_diff

PERIOD_MS = const(1000)
CLEAR_CHECKS = const(3)
REASON = "display: the LED meter does not acknowledge (%d bytes missed)"


class DisplayWatch:
    def __init__(self, display, now):
        self.display = display
        self.sensed = hasattr(display, "check")
        self.last = now
        self.fault = None  # the reason while the display is in a fault
        self.good = 0  # frames acknowledged in a row since the fault

    def due(self, now):
        # A sensed display's check is due once a period.
        return self.sensed and ticks_diff(now, self.last) >= PERIOD_MS

    def heard(self, answer, now):
        # answer: what show() or check() gave (None: the display cannot
        # tell). Gives "raised", "cleared" or None, the fault's change.
        if answer is None:
            return None
        self.last = now
        if answer is False:
            self.good = 0
            if self.fault is None:
                self.fault = REASON % getattr(self.display, "missed_acks", 0)
                return "raised"
            return None
        if self.fault is not None:
            self.good += 1
            if self.good >= CLEAR_CHECKS:
                self.fault = None
                return "cleared"
        return None
