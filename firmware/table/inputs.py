# Polled, debounced inputs: act on the first edge at once, then ignore the pin
# for `settle_ms` so contact bounce and sensor chatter read as one change.
# Any object with value() can be the pin, so tests and the virtual board need
# no hardware.
from micropython import const

from .clock import ticks_add, ticks_diff

RISE = const(1)
FALL = const(-1)


class Debounced:
    def __init__(self, pin, settle_ms, now):
        self.pin = pin
        self.settle_ms = settle_ms
        self.state = 1 if pin.value() else 0
        self.quiet_until = now
        self.since = now  # when the present state began

    def poll(self, now):
        # RISE, FALL or 0 (no change, or still settling).
        if ticks_diff(now, self.quiet_until) < 0:
            return 0
        level = 1 if self.pin.value() else 0
        if level == self.state:
            return 0
        self.state = level
        self.since = now
        self.quiet_until = ticks_add(now, self.settle_ms)
        return RISE if level else FALL

    def held_ms(self, now):
        return ticks_diff(now, self.since)


class Seat:
    # One seat's wiring: the progressive wager's bet sensor, the UTH wager's
    # (None where the board wires none: the progressive chip alone qualifies),
    # the bet light and the jackpot light.
    def __init__(self, number, bet, uth, bet_light, jackpot_light):
        self.number = number
        self.bet = bet
        self.uth = uth
        self.bet_light = bet_light
        self.jackpot_light = jackpot_light

    def has_uth_wager(self):
        return self.uth is None or self.uth.state == 1
