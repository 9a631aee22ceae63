# The controller's loop (table/app.py) keeps the time of the clock its board
# passes (board.clock: ticks_ms and an awaitable sleep_ms), as the virtual
# board's faster clock for a soak does, and sleeps its 5 ms ticks on it.
# Here the board's clock moves 100 ms a tick while almost no real time
# passes: a round's chips, once gone, end it after 250 ms of that clock
# (three ticks), which the host's own clock could never have counted.
import asyncio

import tmpdir
from fakes import Display, Pin
from table import app
from table.clock import ticks_add
from table.inputs import Seat
from table_rig import Rig, high_hit_value

STEP_MS = 100
START = (1 << 30) - 250  # the board's ticks wrap during the test


class Done(Exception):
    pass


class StepClock:
    def __init__(self):
        self.now = START
        self.slept = []

    def ticks_ms(self):
        return self.now

    async def sleep_ms(self, ms):
        self.slept.append(ms)
        await asyncio.sleep(0)


class Serial:
    def __init__(self):
        self.lines = []
        self.finished = False

    def write_line(self, line):
        self.lines.append(line)

    def read_available(self):
        if self.finished:
            raise Done()
        return b""


class ScriptedBoard:
    # Each tick, service() moves the clock one step and does the script's
    # step for that tick: chip on, LOCK, LOCK and chip off; then it watches.
    def __init__(self, root):
        self.chip = Pin()
        self.lock = Pin()
        self.key = Pin()
        self.display = Display()
        self.seats = [Seat(1, self.chip, Pin(1), Pin(), Pin())]  # the UTH chip stays on
        self.serial = Serial()
        self.storage_root = root
        self.random_bytes = high_hit_value
        self.clock = StepClock()
        self.ticks = 0
        self.states = []  # the table's state seen at each tick's service
        self.table = None

    def service(self):
        self.ticks += 1
        self.clock.now = ticks_add(self.clock.now, STEP_MS)
        if self.table is not None:
            self.states.append(self.table.state)
        if self.ticks == 2:
            self.chip.level = 1
        elif self.ticks == 3:
            self.lock.level = 1
        elif self.ticks == 4:
            self.lock.level = 0
            self.chip.level = 0
        elif self.ticks == 12:
            self.serial.finished = True


def _run(board):
    build = app.build

    def keep(b):
        table, link = build(b)
        board.table = table
        return table, link

    app.build = keep
    try:
        app.run(board)
    except Done:
        pass
    finally:
        app.build = build


@tmpdir.within
def test_the_loop_keeps_the_boards_clock(root):
    Rig(root).configure("A1")  # a configured meter on the store the board then runs
    board = ScriptedBoard(root)
    _run(board)
    # states[i] is what tick i + 1 left: tick 3 locks; the chip goes at tick 4
    # and its spot has been clear 300 ms (>= 250) at tick 7, 200 ms at tick 6.
    assert board.states[:4] == ["betting", "betting", "betting", "locked"]
    assert board.states[4:7] == ["locked", "locked", "locked"]
    assert board.states[7] == "betting"
    assert '"ev": "locked"' in "".join(board.serial.lines)
    assert set(board.clock.slept) == {5}  # both tasks sleep 5 ms of the board's clock
