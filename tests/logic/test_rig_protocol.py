# The rig Pico's protocol (boards/rig_pico/rig_protocol.py) on fake pins: the
# same JSON requests and replies as the virtual board's rig port, the level
# each input's drive pin takes, and the lights read back from the rig's inputs.
# The rig's own expander (rig_expander.py) on the datasheet model of
# fake_i2c.py: port A drives, port B lights, and a chip that does not answer
# an error in the reply.
import json
import sys

from fake_i2c import IOCON, IODIR, IPOL, OLAT, FakeI2C, Mcp23017Model
from fakes import Pin

# The rig's modules live with its board (they are no part of the controller).
_RIG_DIR = __file__[: __file__.rfind("tests/")] + "boards/rig_pico"
if _RIG_DIR not in sys.path:
    sys.path.append(_RIG_DIR)

from rig_expander import Drive, Light, RigExpander  # noqa: E402
from rig_protocol import RigPins, serve  # noqa: E402

SEATS = 7
BETS = tuple("bet%d" % n for n in range(1, SEATS + 1))
UTHS = tuple("uth%d" % n for n in range(1, SEATS + 1))
NAMES = BETS + UTHS + ("lock", "key", "door")
STARTS = dict((name, 1 if name in UTHS else 0) for name in NAMES)  # UTH chips placed, door shut


class Rig:
    # RigPins on fake pins, every sleep it asks for recorded.
    def __init__(self, run=True, power=True):
        # Each drive starts at the level opposite to the rig's start: proves it sets them.
        self.drives = dict((name, Pin(1 - STARTS[name])) for name in NAMES)
        self.bet = [Pin() for _ in range(SEATS)]
        self.jackpot = [Pin() for _ in range(SEATS)]
        self.run = Pin(1) if run else None
        self.power = Pin(0) if power else None
        self.slept = []
        self.pins = RigPins(self.drives, self.bet, self.jackpot, self.slept.append,
                            run=self.run, power=self.power)

    def ask(self, **request):
        return self.pins.handle(json.dumps(request))


def levels(drives):
    return dict((name, drives[name].level) for name in NAMES)


def test_the_rig_starts_with_the_uth_chips_placed_the_rest_released_and_the_controller_on():
    rig = Rig()
    assert [name for name in NAMES if rig.drives[name].level] == list(UTHS)
    assert (rig.run.level, rig.power.level) == (0, 1)


def test_set_drives_that_input_alone_and_answers_once_settled():
    for name in NAMES:
        rig = Rig()
        to = 1 - STARTS[name]
        reply = rig.ask(op="set", pin=name, level=to)
        assert reply == {"ok": True, "pin": name, "level": to, "applied": True}
        want = dict(STARTS)
        want[name] = to
        assert levels(rig.drives) == want
        assert rig.slept == [10]  # two 5 ms controller ticks before the answer
        rig.ask(op="set", pin=name, level=STARTS[name])
        assert levels(rig.drives) == STARTS


def test_press_holds_the_pin_for_its_ms_then_releases_it_in_one_request():
    rig = Rig()
    held = []
    rig.pins.sleep_ms = lambda ms: held.append((rig.drives["lock"].level, ms))
    reply = rig.ask(op="press", pin="lock", ms=2500)
    assert reply == {"ok": True, "pin": "lock", "ms": 2500, "applied": True}
    assert held == [(1, 2500), (0, 10)]  # held its time, released, settled two ticks
    assert levels(rig.drives) == STARTS


class Dropped(Exception):
    pass


def test_a_press_interrupted_mid_hold_leaves_the_pin_released():
    # Ctrl-C on the rig's console (mpremote) lands in the hold's sleep.
    rig = Rig()

    def interrupted(ms):
        if rig.drives["key"].level:
            raise Dropped()

    rig.pins.sleep_ms = interrupted
    try:
        rig.pins.press("key", 100)
    except Dropped:
        pass
    else:
        raise AssertionError("the interrupt was swallowed")
    assert rig.drives["key"].level == 0


def test_a_bad_press_is_refused_and_presses_nothing():
    rig = Rig()
    for request in ({"pin": "lock", "ms": -1}, {"pin": "lock", "ms": 60001},
                    {"pin": "lock", "ms": 1.5}, {"pin": "lock9", "ms": 100}, {"pin": "lock"}):
        reply = rig.ask(op="press", **request)
        assert reply["ok"] is False and reply["error"], request
    assert levels(rig.drives) == STARTS and rig.slept == []


def test_state_reports_the_lights_and_the_inputs():
    rig = Rig()
    rig.bet[1].level = 1
    rig.bet[5].level = 1
    rig.jackpot[2].level = 1
    rig.ask(op="set", pin="lock", level=True)
    rig.jackpot[6].level = 1
    state = rig.ask(op="state")
    assert state["ok"] is True
    assert state["bet_lights"] == [0, 1, 0, 0, 0, 1, 0]
    assert state["jackpot_lights"] == [0, 0, 1, 0, 0, 0, 1]
    want = dict(STARTS)
    want["lock"] = 1
    assert state["inputs"] == want
    assert state["display"] is None and state["boots"] is None
    assert state["powered"] is True


def test_a_bad_request_is_one_error_line_and_changes_nothing():
    rig = Rig()
    for line in ('{"op": "set", "pin": "uth8", "level": 1}',
                 '{"op": "set", "pin": "bet1", "level": 2}',
                 '{"op": "set", "pin": "bet1"}', '{"op": "fly"}', "[1, 2]", "not json"):
        reply = rig.pins.handle(line)
        assert reply["ok"] is False and reply["error"], line
    assert levels(rig.drives) == STARTS
    known = rig.ask(op="set", pin="uth8", level=1)["error"]  # names the known pins
    assert "bet7" in known and "uth7" in known
    assert rig.pins.handle("  \r\n") is None  # a blank line is no request


def test_every_answer_names_its_requests_id_refusals_too():
    # The serial line is every client's in turn: the id lets the next client
    # pass over an answer left for one killed mid-request.
    rig = Rig()
    assert rig.ask(op="ping", id=7) == {"ok": True, "reply": "pong", "rig": "rig_pico", "id": 7}
    assert rig.ask(op="set", pin="bet1", level=1, id="x-1")["id"] == "x-1"
    assert rig.ask(op="fly", id=9)["id"] == 9
    refused = rig.ask(op="set", pin="bet1", id=10)  # no level: KeyError, quoted by runtime
    assert refused["ok"] is False and refused["error"].startswith("KeyError") and \
        refused["id"] == 10
    assert "id" not in rig.ask(op="ping")  # no id asked, none given
    assert "id" not in rig.pins.handle("[1, 2]")


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


ADDRESS = 0x27
GPPU = 0x0C
LIGHT_BITS = 1 << 0 | 1 << 1  # port B: seat 7's bet and jackpot lights


class ExpanderRig:
    # The rig as board.py wires it: seats 1-6's progressive spots, LOCK,
    # the key and the door on GPIOs, the seven UTH spots (port A bits 0-6) and seat 7's
    # progressive spot (bit 7) and lights (port B bits 0, 1) on the expander.
    def __init__(self, present=True):
        self.model = Mcp23017Model()
        self.i2c = FakeI2C({ADDRESS: self.model} if present else {})
        chip = RigExpander(self.i2c, ADDRESS, LIGHT_BITS)
        self.gpios = dict((name, Pin()) for name in BETS[:6] + ("lock", "key", "door"))
        drives = dict(self.gpios)
        for bit, name in enumerate(UTHS + ("bet7",)):
            drives[name] = Drive(chip, bit)
        self.pins = RigPins(drives, [Pin() for _ in range(6)] + [Light(chip, 0)],
                            [Pin() for _ in range(6)] + [Light(chip, 1)], lambda ms: None)

    def ask(self, **request):
        return self.pins.handle(json.dumps(request))

    def port_a(self):
        # What the expander's port A pins drive: bit n of seat n+1's UTH drive, bit 7 bet7's.
        return sum(self.model.output(bit) << bit for bit in range(8))


def test_the_expander_starts_port_a_driving_the_uth_chips_placed_and_port_b_as_plain_inputs():
    rig = ExpanderRig()
    regs = rig.model.regs
    assert (regs[IOCON], regs[IODIR], regs[IODIR + 1]) == (0, 0x00, 0xFF)
    assert (regs[IPOL], regs[IPOL + 1]) == (0, 0)  # a light reads high = lit
    assert (regs[GPPU], regs[GPPU + 1]) == (0, 0xFC)  # no pull-up against a light's pull-down
    assert rig.port_a() == 0x7F and regs[OLAT] == 0x7F  # uth1..7 placed, bet7 released
    assert rig.ask(op="state")["inputs"] == STARTS


def test_uth_spots_and_seat_7_go_through_the_expander_and_its_lights_come_back():
    rig = ExpanderRig()
    assert rig.ask(op="set", pin="bet7", level=1)["ok"]
    assert rig.ask(op="set", pin="uth3", level=0)["ok"]
    assert rig.port_a() == 0x80 | 0x7F & ~(1 << 2)
    assert [name for name in NAMES if rig.gpios.get(name, Pin()).level] == []
    state = rig.ask(op="state")
    assert (state["inputs"]["bet7"], state["inputs"]["uth3"], state["inputs"]["uth4"]) == (1, 0, 1)
    rig.model.drive(8, 1)  # seat 7's bet light lit
    state = rig.ask(op="state")
    assert (state["bet_lights"][6], state["jackpot_lights"][6]) == (1, 0)
    rig.model.drive(8, 0)
    rig.model.drive(9, 1)
    state = rig.ask(op="state")
    assert (state["bet_lights"], state["jackpot_lights"][6]) == ([0] * 7, 1)
    rig.model.drive(9, None)  # the wire off: no pull-up of the chip's makes it lit
    assert rig.ask(op="state")["jackpot_lights"] == [0] * 7


def test_an_expander_that_does_not_answer_is_an_error_in_the_reply_never_a_level():
    rig = ExpanderRig()
    rig.i2c.broken = True
    for request in ({"op": "set", "pin": "uth1", "level": 0}, {"op": "state"}):
        reply = rig.ask(**request)
        assert reply["ok"] is False, request
        assert "0x27 does not answer" in reply["error"], reply
    assert rig.ask(op="set", pin="bet1", level=1)["ok"]  # the GPIOs go on
    # The chip back after a power loss (every pin an input again): set up
    # again at the next request, with the levels last asked.
    rig.model = Mcp23017Model()
    rig.i2c.devices[ADDRESS] = rig.model
    rig.i2c.broken = False
    state = rig.ask(op="state")
    assert state["ok"] is True and state["inputs"]["uth1"] == 0
    assert rig.model.regs[IODIR] == 0 and rig.port_a() == 0x7F & ~1


def test_a_rig_whose_expander_is_missing_at_start_answers_and_says_so():
    rig = ExpanderRig(present=False)
    assert rig.ask(op="ping")["ok"] is True
    assert rig.ask(op="set", pin="key", level=1)["ok"] is True
    reply = rig.ask(op="set", pin="bet7", level=1)
    assert reply["ok"] is False and "expander at 0x27" in reply["error"]
