# table_rig.Rig with its seats on MCP23017s on a fake I2C bus (fake_i2c.py):
# a chip on a spot pulls the expander's pin low; the lights are read from the
# expanders' output pins. Seat n sits on the chip at ADDRESSES[(n-1) // 4],
# pins as the wiring tables in the board files give them, written out here
# from those tables, not taken from the driver.
from fake_i2c import FakeI2C, Mcp23017Model
from fakes import Display, Pin
from mystery.bonus import MysteryBonus
from mystery.store import Store
from table.controller import Table
from table.door import expander_input
from table.hostlink import HostLink
from table.pins import ShutWhenLow
from table.seat_expanders import SeatExpanders
from table_rig import Rig, high_hit_value

ADDRESSES = (0x20, 0x21)


def pins_of(seat):
    # (address, GPA bit of the progressive spot, of the UTH spot, GPB bit of
    # the bet light, of the jackpot light), bits numbered 0..15 (GPB0 = 8).
    i = (seat - 1) % 4
    return ADDRESSES[(seat - 1) // 4], i, 4 + i, 8 + i, 12 + i


class ExpanderRig(Rig):
    # uth: the seats whose UTH chip is on its spot at start (default: all).
    def __init__(self, root, seats=7, uth=None, chips=(), present=ADDRESSES, now=1000,
                 random_bytes=high_hit_value, qualify=None, others=None, door=None):
        # others: {address: device} on the bus besides the expanders present;
        # door: (address, GPA bit) of the compartment door's switch, shut at
        # start (its pin pulled low), or None
        self.now = now
        self.seats = seats
        self.lock = Pin()
        self.key = Pin()
        self.display = Display()
        self.models = {address: Mcp23017Model() for address in present}
        devices = dict(self.models)
        devices.update(others or {})
        self.bus = FakeI2C(devices)
        io = SeatExpanders(self.bus, ADDRESSES[:(seats + 3) // 4], seats)
        for seat in range(1, seats + 1):
            self._drive(seat, 1, seat in chips)
            self._drive(seat, 2, uth is None or seat in uth)
        self.door_place = door
        door_pin = None
        if door is not None:
            self.models[door[0]].drive(door[1], 0)
            door_pin = ShutWhenLow(expander_input(io, *door))
        bonus = MysteryBonus(Store(root), random_bytes)
        self.lines = []
        self.table = Table(bonus, io.seats, self.lock, self.key, self.display, None, io=io,
                           qualify=qualify, door_pin=door_pin)
        self.link = HostLink(self.table, self.lines.append)
        self.table.emit = self.link.send
        self.table.start(self.now)

    def _drive(self, seat, which, present):
        pins = pins_of(seat)
        model = self.models.get(pins[0])
        if model is not None:
            model.drive(pins[which], 0 if present else None)  # a chip pulls the pin low

    def open_door(self, opened=True):
        # The switch lets go of its pin when the door opens (the pull-up reads high).
        self.models[self.door_place[0]].drive(self.door_place[1], None if opened else 0)

    def chip(self, seat, on=True):
        self._drive(seat, 1, on)
        self.run(50)

    def uth_chip(self, seat, on=True):
        self._drive(seat, 2, on)
        self.run(50)

    def _lit(self, which):
        lit = []
        for seat in range(1, self.seats + 1):
            pins = pins_of(seat)
            model = self.models.get(pins[0])
            if model is not None and model.output(pins[which]):
                lit.append(seat)
        return lit

    def bet_lit(self):
        return self._lit(3)

    def jackpot_lit(self):
        return self._lit(4)
