# A table wired to fake pins over a store in a temporary folder, with a clock
# the test moves: what a test rig does to a board, done in-process.
import json

from fakes import Display, Pin
from mystery.bonus import MysteryBonus
from mystery.store import Store
from scripted import SALT, ScriptedBytes
from table.clock import ticks_add
from table.controller import Table
from table.hostlink import HostLink
from table.inputs import Seat


def high_hit_value(n):
    # A1's highest hit value ($199.99): no round hits unless a test wants it.
    return (b"\x27\x0f" * 9)[:n]


def _nothing():
    return b""


class Rig:
    # chips: the seats whose chip is on its spot when the board starts (a
    # restart mid-round); now: the board's ticks at start (they wrap at 2**30);
    # today: the board's date, "YYYY-MM-DD" (None: a board with no clock);
    # qualify: the board's declaration (table/qualify.py); program: what the
    # board runs, as a board names it (table/program.py), checked at start;
    # reset_cause: the port's, as app.reset_cause() names it; door: the
    # compartment door's switch (a Pin, 1 = open), None for a board without one;
    # board_time: the bonus's time.time() from the start on (None: no clock).
    def __init__(self, root, random_bytes=high_hit_value, seats=6, uth_sensors=True, chips=(),
                 now=1000, today=None, qualify=None, display=None, program=None,
                 reset_cause=None, door=None, board_time=None):
        self.now = now
        self.lock = Pin()
        self.key = Pin()
        self.display = display or Display()  # display: a driver over fake pins (a TM1637's)
        self.chips = [Pin(1 if n + 1 in chips else 0) for n in range(seats)]
        self.uth = [Pin(1) for _ in range(seats)] if uth_sensors else [None] * seats
        self.bet_lights = [Pin() for _ in range(seats)]
        self.jackpot_lights = [Pin() for _ in range(seats)]
        seat_list = [Seat(n + 1, self.chips[n], self.uth[n], self.bet_lights[n],
                          self.jackpot_lights[n]) for n in range(seats)]
        bonus = MysteryBonus(Store(root), random_bytes, board_time)
        self.lines = []
        self.today = today
        self.table = Table(bonus, seat_list, self.lock, self.key, self.display, None,
                           qualify=qualify, today=lambda: self.today, door_pin=door)
        self.link = HostLink(self.table, self.lines.append)
        self.table.emit = self.link.send
        if program is not None:  # as app.build does for a board that names its program
            self.link.program = program
            self.table.program = program
        self.table.reset_cause = reset_cause  # as app.build has it from machine.reset_cause()
        self.table.start(self.now)

    def run(self, ms, step=5):
        for _ in range(ms // step):
            self.now = ticks_add(self.now, step)
            self.table.tick(self.now)

    def press_lock(self, hold_ms=100):
        self.lock.level = 1
        self.run(hold_ms)
        self.lock.level = 0
        self.run(100)

    def turn_key(self, hold_ms=100):
        self.key.level = 1
        self.run(hold_ms)
        self.key.level = 0
        self.run(100)

    def enter_service(self):
        # The key switch held until leave_service: service mode, where the
        # host may send what only a technician with the key may.
        self.key.level = 1
        self.run(100)
        assert self.table.state == "service", self.table.state

    def leave_service(self):
        self.key.level = 0
        self.run(100)

    def chip(self, seat, on=True):
        self.chips[seat - 1].level = 1 if on else 0
        self.run(50)

    def command(self, **command):
        before = len(self.lines)
        self.feed(json.dumps(command).encode() + b"\n")
        return [json.loads(line) for line in self.lines[before:]]

    def feed(self, data):
        # The link takes the bytes, then takes turns until what they started
        # (a log export) is done; the table's clock stands still meanwhile.
        self.link.feed(data, self.now)
        while self.link.busy():
            self.link.poll(_nothing, self.now)

    def events(self, name=None):
        # Parsed a line at a time: every line parsed at once held a test's
        # whole transcript in a board-sized heap.
        found = []
        for line in self.lines:
            message = json.loads(line)
            if "ev" in message and (name is None or message["ev"] == name):
                found.append(message)
        return found

    def lit(self, lights):
        return [n + 1 for n in range(len(lights)) if lights[n].level]

    def configure(self, name="A1"):
        self.key.level = 1
        self.run(100)
        reply = self.command(cmd="config", mystery=name)[-1]
        self.key.level = 0
        self.run(100)
        return reply


def scripted_hit(candidate):
    # Random bytes that put the first cycle's hit value `candidate` cents above
    # A1's $100 minimum, then A1's highest value for every later cycle.
    chunks = [candidate.to_bytes(2, "big"), SALT]
    chunks += [b"\x27\x0f", SALT] * 20
    return ScriptedBytes(chunks)
