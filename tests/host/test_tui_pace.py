# Auto-play on a slow emulated chip (tui/hands.py): the waits it gives the
# board's own time (the firmware's settle before the next LOCK, each step's
# timeout) are stretched by the chip's pace that rig state reports, so a
# chip at a quarter of real time is not pressed before it can see the press.
import threading
import time

from uthctl.tui.hands import AUTO_SETTLE_S, Hands, pace_stretch


class SlowTable:
    # A rig and a host link over one fake table: LOCK locks it, the chips
    # lifted end the round; the chip reports a quarter of real time.
    def __init__(self, speed):
        self.state = "betting"
        self.speed = speed
        self.locks = []  # when LOCK was pressed
        self.hands = None

    # the rig
    def state_of_rig(self):
        return {"inputs": {"bet1": 1, "uth1": 1}, "bet_lights": [1, 0, 0, 0, 0, 0, 0],
                "chip_speed": self.speed}

    def wait_for(self, predicate, timeout, interval, what):
        assert predicate(self.state_of_rig()), what

    def set(self, pin, level):
        if pin == "lock" and level:
            self.locks.append(time.monotonic())
            self.state = "locked"
            if len(self.locks) == 2:
                self.hands.auto_stop.set()

    def set_many(self, levels):
        if all(level == 0 for _, level in levels) and levels:
            self.state = "betting"

    # the host link
    def command(self, cmd, **fields):
        return {"ok": True, "state": self.state}


def _autoplay(speed):
    table = SlowTable(speed)
    rig = type("Rig", (), {"state": lambda _: table.state_of_rig(), "wait_for":
                           lambda _, *a: table.wait_for(*a), "set": lambda _, *a: table.set(*a),
                           "set_many": lambda _, levels: table.set_many(levels)})()
    host = type("Host", (), {"command": lambda _, cmd, **f: table.command(cmd, **f)})()
    hands = Hands(rig, host, lambda text, style: None)
    table.hands = hands
    hands.autoplaying = threading.Event()
    hands.autoplay()
    return table.locks


def test_a_chip_at_a_quarter_of_real_time_gets_four_times_the_settle():
    first, second = _autoplay(0.25)
    assert second - first >= 4 * AUTO_SETTLE_S


def test_the_stretch_follows_the_chips_pace_and_no_other_board():
    assert pace_stretch({"chip_speed": 0.5}) == 2.0
    assert pace_stretch({"chip_speed": 0.05}) == 20.0  # a chip held to a twentieth
    assert pace_stretch({"chip_speed": 0.001}) == 100.0  # no slower than --throttle's least
    for state in ({}, {"chip_speed": None}, {"chip_speed": 1.2}, {"chip_speed": 0}):
        assert pace_stretch(state) == 1.0
