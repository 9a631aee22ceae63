# The seats wired through MCP23017 expanders (mcp23017.py), four seats a chip:
# on chip k (the k-th address a board gives), seat 4k+i+1 (i = 0..3) has
#
#   GPAi     its progressive spot's sensor      in, pulled up, low = chip present
#   GPA(4+i) its UTH spot's sensor              "
#   GPBi     its bet light                      out, high = lit
#   GPB(4+i) its jackpot light                  "
#
# so port A is all inputs and port B all outputs, and two chips carry seven
# seats (28 signals; the second chip's GPA3, GPA7, GPB3 and GPB7 are spare: a
# board may wire its compartment door's switch to a spare input, door.py).
# The host's models of the expanders (the virtual board's, the emulated
# Pico's) take this layout from here.
#
# The controller calls start() once, read() before and write() after each
# tick. Each returns None, or the reason the table cannot trust its seats: a
# bus error or a missing expander is a fault, never "no chip".
from micropython import const

from .hardware import seats_from
from .mcp23017 import Input, Mcp23017, NotAnExpander, Output

SEATS_PER_CHIP = const(4)
BET_BIT = const(0)  # + i: progressive spot (GPA0..3)
UTH_BIT = const(4)  # + i: UTH spot (GPA4..7)
BET_LIGHT_BIT = const(8)  # + i: bet light (GPB0..3)
JACKPOT_BIT = const(12)  # + i: jackpot light (GPB4..7)
INPUTS_MASK = const(0x00FF)  # port A in, port B out
SIGNALS = {"bet": BET_BIT, "uth": UTH_BIT, "bet_light": BET_LIGHT_BIT,
           "jackpot_light": JACKPOT_BIT}


def place(seat, signal):
    # (chip index, bit) of a seat's signal; seat counts from 1.
    chip, i = divmod(seat - 1, SEATS_PER_CHIP)
    return chip, SIGNALS[signal] + i


def chips_needed(seats):
    return (seats + SEATS_PER_CHIP - 1) // SEATS_PER_CHIP


class SeatExpanders:
    def __init__(self, i2c, addresses, seats):
        if len(addresses) != chips_needed(seats):
            raise ValueError("%d seats take %d expanders, not %d"
                             % (seats, chips_needed(seats), len(addresses)))
        self.chips = [Mcp23017(i2c, address, INPUTS_MASK) for address in addresses]
        self.seats = seats_from(*[[self._pin(n, signal) for n in range(1, seats + 1)]
                                  for signal in ("bet", "bet_light", "jackpot_light", "uth")])

    def _pin(self, seat, signal):
        chip, bit = place(seat, signal)
        kind = Input if bit < 8 else Output
        return kind(self.chips[chip], bit)

    def start(self):
        for chip in self.chips:
            try:
                chip.begin()
            except OSError as error:
                return _reason(chip, "no answer", error)
            except NotAnExpander as error:
                return "I2C expander 0x%02x: not an MCP23017 as wired (%s)" % (chip.address,
                                                                                error)
        return None

    def read(self):
        for chip in self.chips:
            try:
                chip.read()
            except OSError as error:
                return _reason(chip, "bus error reading the spots", error)
        return None

    def write(self):
        # Every chip is tried, so one that fails leaves the others' lights right.
        reason = None
        for chip in self.chips:
            try:
                chip.flush()
            except OSError as error:
                reason = reason or _reason(chip, "bus error writing the lights", error)
        return reason


def _reason(chip, what, error):
    code = error.args[0] if error.args else "?"
    return "I2C expander 0x%02x: %s (OSError %s)" % (chip.address, what, code)
