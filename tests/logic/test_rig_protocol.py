# The rig Pico's protocol (boards/rig_pico/rig_protocol.py) on fake pins: the
# same JSON requests and replies as the virtual board's rig port, the level
# each input's drive pin takes, and the lights read back from the rig's inputs.
import json
import sys

from fakes import Pin

# The rig's modules live with its board (they are no part of the controller).
_RIG_DIR = __file__[: __file__.rfind("tests/")] + "boards/rig_pico"
if _RIG_DIR not in sys.path:
    sys.path.append(_RIG_DIR)

from rig_protocol import RigPins, serve  # noqa: E402

NAMES = ("bet1", "bet2", "bet3", "bet4", "bet5", "bet6", "lock", "key")


class Rig:
    # RigPins on fake pins, every sleep it asks for recorded.
    def __init__(self, run=True, power=True):
        self.drives = {name: Pin(1) for name in NAMES}  # 1: proves the rig releases them
        self.bet = [Pin() for _ in range(6)]
        self.jackpot = [Pin() for _ in range(6)]
        self.run = Pin(1) if run else None
        self.power = Pin(0) if power else None
        self.slept = []
        self.pins = RigPins(self.drives, self.bet, self.jackpot, self.slept.append,
                            run=self.run, power=self.power)

    def ask(self, **request):
        return self.pins.handle(json.dumps(request))


def test_the_rig_starts_with_every_input_released_and_the_controller_on():
    rig = Rig()
    assert [rig.drives[name].level for name in NAMES] == [0] * 8
    assert (rig.run.level, rig.power.level) == (0, 1)


def test_set_drives_that_input_alone_high_and_answers_once_settled():
    for name in NAMES:
        rig = Rig()
        reply = rig.ask(op="set", pin=name, level=1)
        assert reply == {"ok": True, "pin": name, "level": 1, "applied": True}
        assert [n for n in NAMES if rig.drives[n].level] == [name]
        assert rig.slept == [10]  # two 5 ms controller ticks before the answer
        rig.ask(op="set", pin=name, level=0)
        assert rig.drives[name].level == 0


def test_state_reports_the_lights_and_the_inputs():
    rig = Rig()
    rig.bet[1].level = 1
    rig.bet[5].level = 1
    rig.jackpot[2].level = 1
    rig.ask(op="set", pin="lock", level=True)
    state = rig.ask(op="state")
    assert state["ok"] is True
    assert state["bet_lights"] == [0, 1, 0, 0, 0, 1]
    assert state["jackpot_lights"] == [0, 0, 1, 0, 0, 0]
    assert state["inputs"] == dict((name, 1 if name == "lock" else 0) for name in NAMES)
    assert state["display"] is None and state["boots"] is None
    assert state["powered"] is True


def test_a_bad_request_is_one_error_line_and_changes_nothing():
    rig = Rig()
    for line in ('{"op": "set", "pin": "uth1", "level": 1}',
                 '{"op": "set", "pin": "bet1", "level": 2}',
                 '{"op": "set", "pin": "bet1"}', '{"op": "fly"}', "[1, 2]", "not json"):
        reply = rig.pins.handle(line)
        assert reply["ok"] is False and reply["error"], line
    assert [rig.drives[name].level for name in NAMES] == [0] * 8
    assert "bet1" in rig.ask(op="set", pin="uth1", level=1)["error"]  # names the known pins
    assert rig.pins.handle("  \r\n") is None  # a blank line is no request


def test_power_switches_the_load_switch_and_says_whether_it_changed():
    rig = Rig()
    assert rig.ask(op="power", on=False) == {"ok": True, "changed": True}
    assert rig.power.level == 0 and rig.ask(op="state")["powered"] is False
    assert rig.ask(op="power", on=False) == {"ok": True, "changed": False}
    assert rig.ask(op="power", on=True) == {"ok": True, "changed": True}
    assert rig.power.level == 1


def test_reset_pulses_run_and_releases_it():
    rig = Rig()
    levels = []
    rig.pins.sleep_ms = lambda ms: levels.append((rig.run.level, ms))
    assert rig.ask(op="reset") == {"ok": True, "changed": True}
    assert levels == [(1, 50)] and rig.run.level == 0


def test_without_run_reset_is_a_power_cycle_and_without_either_a_refusal():
    rig = Rig(run=False)
    levels = []
    rig.pins.sleep_ms = lambda ms: levels.append((rig.power.level, ms))
    assert rig.ask(op="reset")["ok"] is True
    assert levels == [(0, 500)] and rig.power.level == 1
    bare = Rig(run=False, power=False)
    assert bare.ask(op="reset")["ok"] is False
    assert bare.ask(op="power", on=False)["ok"] is False
    assert bare.ask(op="state")["powered"] is True


def test_serve_answers_each_line_in_order_with_crlf():
    rig = Rig()
    lines = [b'{"op": "ping"}\n', b"\r\n", b'{"op": "set", "pin": "key", "level": 1}\n', None]
    written = []
    serve(rig.pins, lambda: lines.pop(0), written.append)
    assert all(line.endswith(b"\r\n") for line in written)
    replies = [json.loads(line) for line in written]
    assert [reply["ok"] for reply in replies] == [True, True]
    assert replies[0]["reply"] == "pong" and replies[1]["pin"] == "key"
    assert rig.drives["key"].level == 1
