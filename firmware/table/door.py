# The controller compartment's door switch (25 CFR 547.10(b); 13:69E-1.39C(b)(5):
# its opening detected and logged, play disabled while it stands open).
#
# The pin reads 1 while the door is open: the switch is closed by the shut
# door and pulls the expander's input low, so a cut wire or a switch pulled
# off reads open, never shut (docs/boards.md, "The door").
#
# An opening is acted on at once, so nothing locks with the door open. A
# closing counts only once the door has read shut for CLOSE_MS in a row: a
# switch that chatters (a loose door, a worn contact) reads as one opening and
# one closing, not a record each bounce. So a door makes at most two records
# in any CLOSE_MS, however its switch chatters, and a burst of chatter whose
# shut spells are each shorter than CLOSE_MS makes two records in all.
from micropython import const

from .inputs import Debounced
from .mcp23017 import Input

CLOSE_MS = const(1000)
OPEN, CLOSED = "open", "closed"


def expander_input(io, address, bit):
    # The switch's pin on one of the seats' expanders (seat_expanders.py): a
    # port A pin outside the seats' layout, read with theirs at each tick. A
    # board's own module: the controller never loads it for a board without.
    if not 0 <= bit < 8:
        raise ValueError("expander pin %d is not an input (GPA0..7 are)" % bit)
    for seat in io.seats:
        for pin in (seat.bet, seat.uth):
            if pin.chip.address == address and pin.bit == bit:
                raise ValueError("expander 0x%02x pin %d is seat %d's" % (address, bit,
                                                                         seat.number))
    for chip in io.chips:
        if chip.address == address:
            return Input(chip, bit)
    raise ValueError("no expander at 0x%02x" % address)


class Door:
    def __init__(self, pin, settle_ms, now):
        self.input = Debounced(pin, settle_ms, now)
        # The level at start is taken as it is: an open door at power-up is
        # an opening (the controller cannot know what happened while off).
        self.open = self.input.state == 1

    def poll(self, now):
        # OPEN or CLOSED when the door's state changes, else None.
        self.input.poll(now)
        if self.input.state == 1:
            if not self.open:
                self.open = True
                return OPEN
        elif self.open and self.input.held_ms(now) >= CLOSE_MS:
            self.open = False
            return CLOSED
        return None
