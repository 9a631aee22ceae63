# The test rig's firmware (boards/rig_pico) on the emulated Pico: deployed by
# `make deploy BOARD=rig_pico`, driven over its serial pty by the host's rig
# client (links/rig.py) exactly as a real rig Pico on /dev/ttyACM1, its pins
# checked from the emulator's side (the rig port's gpio op):
# - `set` of each controller input drives that input's rig GPIO, or its bit
#   of the rig's own MCP23017's port A, alone, which turns on the transistor
#   that pulls the controller's pin to ground; the pin is the one the rig's
#   own pin map gives that signal (docs/boards.md: The rig Pico); the UTH spots start
#   placed;
# - a level on each light's rig GPIO or expander pin shows in the rig's
#   `state`, and a released wire reads unlit (the emulator reads a pad with
#   no pull low too: the pull-down itself is test_rig_board.py's);
# - the expander off the bus is an error in the rig's replies, not a level;
# - power and reset move the load switch's and RUN's GPIOs.
# About 25 s: one deploy of three small modules, then requests of a few ms.
import json
import signal
import subprocess
import sys
import time

import pytest
from rig_pico_target import BOOT_WAIT, POWER_GPIO, RUN_GPIO, deploy_rig, rig_board, rig_pins

from uthctl import cli
from uthctl.boards import pico_image
from uthctl.links.rig import Rig, RigError

WHY_NOT = pico_image.unavailable(pico_image.OFFICIAL)
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason="emulated Pico: %s" % WHY_NOT),
              pytest.mark.board, pytest.mark.pico, pytest.mark.pico_quick]

PINS = rig_pins()  # the rig's pin for each signal, from its board file
INPUT_GPIOS = dict(PINS["_GP_DRIVE"])
INPUT_BITS = dict(PINS["_X_DRIVE"])  # on the rig's expander's port A
ADDRESS = PINS["_X_ADDRESS"]
STARTS = {name: int(name.startswith("uth")) for name in list(INPUT_GPIOS) + list(INPUT_BITS)}
STARTS["door"] = 0  # the controller's door (its own drive, _GP_DOOR), shut at start
WIRING = {"bet_lights": list(PINS["_GP_BET_LIGHT"]),
          "jackpot_lights": list(PINS["_GP_JACKPOT_LIGHT"])}
X_LIGHTS = {"bet_lights": 8 + PINS["_X_BET_LIGHT"][0],  # seat 7's: port B pins
            "jackpot_lights": 8 + PINS["_X_JACKPOT_LIGHT"][0]}
TIMEOUT = 30.0  # the emulator on a loaded 2-core host


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    flash = tmp_path_factory.mktemp("rig-pico") / "flash.img"
    with rig_board(flash) as board:
        assert board.wait_started(BOOT_WAIT)["state"] == "repl"  # a bare image
        deploy_rig(board)
        yield board


@pytest.fixture
def rig(board):
    with Rig(port=board.serial_path, timeout=TIMEOUT) as rig:
        yield rig


@pytest.fixture
def pins(board):
    # The emulator's side of the rig's pins.
    with Rig(board.rig_address, timeout=TIMEOUT) as pins:
        yield pins


def level(pins, gpio):
    reply = pins.request(op="gpio", pin=gpio)
    return reply["level"], reply["output"]


def drive(pins, gpio, to):
    # The outside drives a pad (None: lets it go to its pull), then waits
    # until the pad reads so: on a loaded host the emulator may answer
    # "applied": false, having lagged past the supervisor's wait, and apply
    # the level a moment later.
    pins.request(op="gpio", pin=gpio, level=to)
    deadline = time.monotonic() + TIMEOUT
    while level(pins, gpio)[0] != (to or 0):
        assert time.monotonic() < deadline, "GPIO%d never read %s" % (gpio, to)
        time.sleep(0.01)


def drive_levels(pins):
    return {name: level(pins, gpio) for name, gpio in INPUT_GPIOS.items()}


def port_a(pins):
    # The rig's expander's output pins as the emulator's model drives them.
    return pins.request(op="expander", address=ADDRESS)["outputs"] & 0xFF


def placed(pins):
    return sum(1 << INPUT_BITS[name] for name in INPUT_BITS if STARTS[name])


def test_set_of_each_input_drives_that_pin_alone(rig, pins):
    released = {name: (0, True) for name in INPUT_GPIOS}  # driven low: transistor off
    assert drive_levels(pins) == released
    assert port_a(pins) == placed(pins)  # uth1..7 placed, bet7 released
    for name in INPUT_GPIOS:
        reply = rig.set(name, 1)
        assert (reply["pin"], reply["level"], reply["applied"]) == (name, 1, True)
        assert drive_levels(pins) == dict(released, **{name: (1, True)}), name
        assert rig.state()["inputs"] == dict(STARTS, **{name: 1})
        rig.set(name, 0)
        assert level(pins, INPUT_GPIOS[name]) == (0, True)
    for name, bit in INPUT_BITS.items():
        to = 1 - STARTS[name]
        assert rig.set(name, to)["applied"] is True
        assert port_a(pins) == placed(pins) ^ (1 << bit), name
        assert rig.state()["inputs"] == dict(STARTS, **{name: to})
        rig.set(name, STARTS[name])
    assert drive_levels(pins) == released and port_a(pins) == placed(pins)


def test_a_light_level_on_each_rig_input_shows_in_state(rig, pins):
    for kind in ("bet_lights", "jackpot_lights"):
        other = "jackpot_lights" if kind == "bet_lights" else "bet_lights"
        for seat, gpio in enumerate(WIRING[kind]):
            drive(pins, gpio, 1)  # the controller drives it high: lit
            state = rig.state()
            assert state[kind] == [int(n == seat) for n in range(7)], (kind, seat)
            assert state[other] == [0] * 7
            assert level(pins, gpio) == (1, False)  # the rig reads it, never drives it
            drive(pins, gpio, 0)
            assert rig.state()[kind] == [0] * 7
            drive(pins, gpio, None)  # the wire off: not pulled up
            assert rig.state()[kind] == [0] * 7 and level(pins, gpio) == (0, False)
        # Seat 7's on the expander's port B.
        for to, lit_7 in ((1, 1), (0, 0), (None, 0)):
            pins.request(op="expander", address=ADDRESS, pin=X_LIGHTS[kind], level=to)
            state = rig.wait_for(lambda s, kind=kind, lit_7=lit_7: s[kind][6] == lit_7,
                                 TIMEOUT, what="seat 7's %s at %s" % (kind, to))
            assert state[kind] == [0] * 6 + [lit_7] and state[other] == [0] * 7


def test_the_rigs_expander_off_its_bus_is_an_error_in_the_reply(rig, pins):
    pins.i2c_fault(True)
    try:
        for ask in (lambda: rig.uth(1, False), rig.state):
            with pytest.raises(RigError, match="expander at 0x27 does not answer"):
                ask()
        assert rig.set("bet1", 1)["applied"] is True  # the GPIOs go on
        rig.set("bet1", 0)
    finally:
        pins.i2c_fault(False)
    deadline = time.monotonic() + TIMEOUT
    while True:  # the bus mended on the emulator's control line, beside the rig's serial
        try:
            state = rig.state()
            break
        except RigError:
            assert time.monotonic() < deadline, "the rig's expander never answered again"
            time.sleep(0.1)
    assert state["inputs"] == dict(STARTS, uth1=0)  # the level asked, once it answers
    rig.uth(1, True)
    assert port_a(pins) == placed(pins)


def test_power_and_reset_move_the_load_switch_and_run(rig, pins):
    assert level(pins, POWER_GPIO) == (1, True) and level(pins, RUN_GPIO) == (0, True)
    assert rig.power(False) == {"ok": True, "changed": True}
    assert level(pins, POWER_GPIO) == (0, True) and rig.state()["powered"] is False
    assert rig.power(True)["changed"] is True and level(pins, POWER_GPIO) == (1, True)
    assert rig.reset() == {"ok": True, "changed": True}
    assert level(pins, RUN_GPIO) == (0, True)  # released after its pulse


def test_a_client_killed_mid_press_leaves_the_drive_released(board, pins):
    # The rig's firmware holds the press and lets go itself.
    code = ("import sys; from uthctl.links.rig import Rig; "
            "Rig(port=sys.argv[1], timeout=60.0).press_lock(5000)")
    client = subprocess.Popen([sys.executable, "-c", code, board.serial_path])
    lock = INPUT_GPIOS["lock"]
    try:
        deadline = time.monotonic() + TIMEOUT
        while level(pins, lock)[0] != 1:  # driven high: its transistor pulls LOCK low
            assert time.monotonic() < deadline and client.poll() is None, "never pressed"
            time.sleep(0.02)
    finally:
        client.send_signal(signal.SIGKILL)
        client.wait()
    deadline = time.monotonic() + TIMEOUT
    while level(pins, lock)[0] != 0:
        assert time.monotonic() < deadline, "the rig left LOCK pressed"
        time.sleep(0.05)
    # The press's answer, sent after the release to a client no longer there,
    # may still be on its way: the next client passes over it by its id.
    with Rig(port=board.serial_path, timeout=TIMEOUT) as after:
        assert after.request(op="ping")["reply"] == "pong"


def test_a_refused_request_is_a_rig_error_and_the_rig_answers_on(rig):
    with pytest.raises(RigError, match="unknown input 'uth8'"):
        rig.set("uth8", 1)
    assert rig.request(op="ping")["reply"] == "pong"


def test_uthctl_rig_port_takes_the_sim_verbs(board, pins, capsys):
    assert cli.main(["rig", "--port", board.serial_path, "chip", "3", "on", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["applied"] is True
    assert level(pins, INPUT_GPIOS["bet3"]) == (1, True)
    drive(pins, WIRING["jackpot_lights"][5], 1)
    assert cli.main(["rig", "--port", board.serial_path, "state"]) == 0
    text = capsys.readouterr().out
    assert "jackpot lights 6\n" in text and "chips          3\n" in text
    assert cli.main(["rig", "--port", board.serial_path, "chip", "3", "off"]) == 0
    drive(pins, WIRING["jackpot_lights"][5], None)
    assert level(pins, INPUT_GPIOS["bet3"]) == (0, True)
