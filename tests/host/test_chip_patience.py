# A wait counted on both clocks (uthctl/links/chip_clock.py): the wall's and
# the board's. The wall is a hand-turned clock here; the chip's runs at
# whatever share of it a case needs, so every figure below is set by the case.
import json
import socket
import threading

import pytest

from uthctl.links import chip_clock
from uthctl.links.chip_clock import WALL, Patience, RigChipClock


class Wall:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class Chip:
    # A chip clock at `share` of the wall's time since it started; readings
    # are taken from the wall, as the rig port's are.
    def __init__(self, wall, share, start=3.0):
        self.wall, self.share, self.start, self.from_wall = wall, share, start, wall.t
        self.off = False

    def now(self):
        if self.off:
            return None
        return self.start + (self.wall.t - self.from_wall) * self.share


@pytest.fixture
def wall(monkeypatch):
    turned = Wall()
    monkeypatch.setattr(chip_clock.time, "monotonic", turned)
    return turned


def test_on_the_wall_alone_it_is_the_plain_timeout(wall):
    patience = Patience(5.0)
    wall.t += 4.9
    assert not patience.over()
    wall.t += 0.1
    assert patience.over()
    assert patience.told() == "5.0 s"


def test_a_chip_at_a_twentieth_of_real_time_is_given_its_own_five_seconds(wall):
    patience = Patience(5.0, Chip(wall, 0.05))
    wall.t += 5.0  # the wall's 5 s: the chip has had 0.25 s
    assert not patience.over()
    wall.t += 94.0  # 4.95 s of the chip's
    assert not patience.over()
    wall.t += 1.0  # 5 s of the chip's, 100 s of the wall's
    assert patience.over()
    assert patience.told() == "5.0 s of the chip's clock (100.0 s on the wall)"


def test_a_chip_ahead_of_the_wall_waits_the_walls_seconds_all_the_same(wall):
    # An emulated chip that is not held to the wall jumps through its idle time.
    patience = Patience(5.0, Chip(wall, 20.0))
    wall.t += 1.0  # the chip's 20 s
    assert not patience.over()
    wall.t += 4.0
    assert patience.over()


def test_a_board_switched_off_or_powered_on_again_leaves_the_walls_count(wall):
    chip = Chip(wall, 0.05)
    patience = Patience(5.0, chip)
    wall.t += 5.0
    chip.off = True
    assert patience.over()
    chip.off = False
    again = Patience(5.0, chip)
    chip.start, chip.from_wall = 0.0, wall.t  # a power-on: the chip's clock starts again
    wall.t += 5.0
    assert again.over()


def test_a_chip_whose_clock_stands_still_is_not_waited_for(wall):
    chip = Chip(wall, 0.05)
    patience = Patience(5.0, chip)
    wall.t += 5.0
    chip.share, chip.start, chip.from_wall = 0.0, chip.now(), wall.t  # the emulator hangs
    assert not patience.over()
    wall.t += chip_clock.STALL_S - 1
    assert not patience.over()
    wall.t += 1
    assert patience.over()


def test_a_blocking_wait_is_sliced_so_the_chip_is_asked_again(wall):
    patience = Patience(5.0, Chip(wall, 0.05))
    assert patience.slice_s() == 5.0
    wall.t += 3.0
    assert patience.slice_s() == 2.0
    wall.t += 10.0
    assert patience.slice_s() == chip_clock.CHECK_S


class RigPort(threading.Thread):
    # A rig port on loopback answering {"op": "time"} with `answer`.
    def __init__(self, answer):
        super().__init__(daemon=True)
        self.answer = answer
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = self.server.getsockname()
        self.asked = 0

    def run(self):
        conn, _ = self.server.accept()
        with conn, conn.makefile("rwb") as stream:
            for line in stream:
                assert json.loads(line) == {"op": "time"}
                self.asked += 1
                stream.write(json.dumps(self.answer).encode() + b"\n")
                stream.flush()


def test_the_rig_ports_time_is_the_chips_clock_in_seconds():
    port = RigPort({"ok": True, "emulated_ns": 2_500_000_000, "cycles": 312_500_000})
    port.start()
    clock = RigChipClock(port.address)
    try:
        assert clock.now() == 2.5
        assert clock.now() == 2.5
        assert port.asked == 2
    finally:
        clock.close()


def test_a_rig_port_without_time_is_a_board_on_the_walls_clock():
    port = RigPort({"ok": False, "error": "unknown op 'time' (state, set, press)"})
    port.start()
    clock = RigChipClock(port.address)
    try:
        first = clock.now()
        second = clock.now()
        assert second >= first and port.asked == 1  # asked once, then the wall's
    finally:
        clock.close()


def test_a_board_that_is_off_has_no_clock():
    port = RigPort({"ok": False, "error": "the board is off: its clock is not running"})
    port.start()
    clock = RigChipClock(port.address)
    try:
        assert clock.now() is None
    finally:
        clock.close()


def test_the_wall_is_no_chip():
    assert Patience(1.0, WALL).chip_from is None
