# A press (LOCK, the key) through a board's rig port is one operation of the
# board's side (boards/rig_port.py; the emulated Pico times it on the chip's
# clock): a rig client killed mid-press leaves nothing held, so the round
# goes on as if the dealer had let go. And a bad press is refused whole.
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.usefixtures("micropython"), pytest.mark.board]

HOLD_MS = 4000  # long enough to kill the client while the rig holds the pin
LOCK_GPIO = 22  # boards/rp2040_pico/board.py


@pytest.fixture
def board(tmp_path, target):
    vb = target.board(tmp_path / "flash.img")
    try:
        # The controller up first: a level is applied when its tick reads the
        # pin, and the emulated ESP32's takes minutes to start.
        with target.link(vb.serial_path) as link:
            link.wait_ready(20.0)
        with target.rig(vb.rig_address) as rig:
            rig.wait_for(lambda s: s["powered"] and s["board"], 30.0, what="the board up")
            yield vb, rig
    finally:
        vb.stop()


PRESSES = {"lock": "press_lock", "key": "turn_key"}


def _press_in_a_client(address, pin):
    # A client process of its own, holding `pin` through the rig, killed below.
    code = ("import sys; from uthctl.links.rig import Rig; "
            "getattr(Rig(sys.argv[1], timeout=60.0), sys.argv[2])(%d)" % HOLD_MS)
    return subprocess.Popen([sys.executable, "-c", code, address, PRESSES[pin]])


@pytest.mark.parametrize("pin", ["lock", "key"])
def test_a_client_killed_mid_press_leaves_the_pin_released(board, target, pin):
    vb, rig = board
    client = _press_in_a_client(vb.rig_address, pin)
    try:
        rig.wait_for(lambda s: s["inputs"][pin] == 1, 30.0, what="%s pressed" % pin)
    finally:
        client.send_signal(signal.SIGKILL)
        client.wait()
    # Released by the rig's side once its hold is over, with no client left.
    state = rig.wait_for(lambda s: s["inputs"][pin] == 0, 30.0, what="%s released" % pin)
    assert state["inputs"][pin] == 0
    if target.name == "pico" and pin == "lock":  # the chip's own pad: its pull-up again
        deadline = time.monotonic() + target.wait(10.0)
        while rig.request(op="gpio", pin=LOCK_GPIO)["level"] != 1:
            assert time.monotonic() < deadline, "GPIO22 still pulled low"
            time.sleep(0.05)


def test_a_press_answers_after_its_release(board):
    _, rig = board
    reply = rig.press("lock", 150)
    assert reply["applied"] is True and reply["ms"] == 150
    assert rig.state()["inputs"]["lock"] == 0


def test_a_bad_press_is_refused_and_presses_nothing(board):
    _, rig = board
    for request in ({"pin": "lock", "ms": -5}, {"pin": "lock", "ms": "100"},
                    {"pin": "lock", "ms": 60_001}, {"pin": "seat9", "ms": 100}):
        with pytest.raises(OSError, match="rig: "):
            rig.request(op="press", **request)
    assert rig.state()["inputs"]["lock"] == 0
