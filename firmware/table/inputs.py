# Polled, debounced inputs: act on the first edge at once, then ignore the pin
# for `settle_ms` so contact bounce and sensor chatter read as one change.
# Any object with value() can be the pin, so tests and the virtual board need
# no hardware.
#
# Ticks wrap (clock.py): an interval taken with ticks_diff is right only while
# it is under 2**29 ms (6.2 days), and a pin may sit still for weeks. So the
# settle time ends with a flag, not a comparison made forever, and the time a
# level has been held saturates at an hour (nothing waits longer than seconds),
# counted while every poll sees it young.
from micropython import const

from mystery import entropy

from .clock import ticks_diff

RISE = const(1)
FALL = const(-1)
HELD_MAX_MS = const(3_600_000)  # held_ms() says "an hour" for anything longer


class Debounced:
    def __init__(self, pin, settle_ms, now):
        self.pin = pin
        self.settle_ms = settle_ms
        self.state = 1 if pin.value() else 0
        self.since = now  # when the present state began
        self.settling = False  # the level read at start-up is taken as settled
        self.held_long = False  # the present state has lasted HELD_MAX_MS or more

    def poll(self, now):
        # RISE, FALL or 0 (no change, or still settling).
        held = ticks_diff(now, self.since)
        if held < 0 or held >= HELD_MAX_MS:
            self.held_long = True  # (negative: polls stopped for days, wrapped)
        if self.settling:
            if 0 <= held < self.settle_ms and not self.held_long:
                return 0
            self.settling = False
        level = 1 if self.pin.value() else 0
        if level == self.state:
            return 0
        self.state = level
        self.since = now
        self.settling = True
        entropy.note()  # its microsecond, for the generator's next reseed
        self.held_long = False
        return RISE if level else FALL

    def held_ms(self, now):
        # How long the present state has lasted, at most HELD_MAX_MS.
        if self.held_long:
            return HELD_MAX_MS
        held = ticks_diff(now, self.since)
        return held if 0 <= held < HELD_MAX_MS else HELD_MAX_MS


class Seat:
    # One seat's wiring: the progressive wager's bet sensor, the UTH wager's
    # (None on a board built without one, which must declare
    # qualify="progressive_spot_only": qualify.py), the bet light and the
    # jackpot light. The pins stay as the board gives them: the table reads
    # them through SeatSensors.
    def __init__(self, number, bet, uth, bet_light, jackpot_light):
        self.number = number
        self.bet = bet
        self.uth = uth
        self.bet_light = bet_light
        self.jackpot_light = jackpot_light


class SeatSensors:
    # A seat's spots as the table reads them, debounced; wiring: its Seat.
    def __init__(self, wiring, settle_ms, now):
        self.wiring = wiring
        self.number = wiring.number
        self.bet = Debounced(wiring.bet, settle_ms, now)
        self.uth = None if wiring.uth is None else Debounced(wiring.uth, settle_ms, now)

    def poll(self, now):
        # Both spots polled; gives the bet spot's edge (RISE, FALL or 0).
        if self.uth is not None:
            self.uth.poll(now)
        return self.bet.poll(now)

    def has_uth_wager(self):
        # A seat with no UTH-spot sensor counts as having the wager (qualify.py).
        return self.uth is None or self.uth.state == 1
