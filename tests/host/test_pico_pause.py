# The emulated Pico held to a quarter of real time on purpose (emulator.mjs
# --throttle), played through its rig with a client's ordinary 5 s timeout:
# rounds with a minute's idle pause between them lose no input and time out
# nothing, because the emulator keeps the spacing within a burst of inputs
# (a chip, then LOCK) and never carries a pause onto the chip's clock.
# `rig state` reports the chip's speed. About 3 minutes: `make test-pico`'s
# alone (pico_full).
import contextlib
import time

import pytest
from pico_target import BOOT_WAIT

from uthctl.boards import pico_image
from uthctl.boards.max7219_model import reading
from uthctl.links.board_link import Link
from uthctl.links.rig import Rig, lit

WHY_NOT = pico_image.unavailable()
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason="emulated Pico: %s" % WHY_NOT),
              pytest.mark.board, pytest.mark.pico, pytest.mark.pico_full]

THROTTLE = 0.25  # the slowest chip the rig promises a 5 s answer at
CLIENT_TIMEOUT = 5.0  # `uthctl rig`'s own
PAUSE_S = 60.0
SEATS = (2, 5)
WAIT = 120.0  # for what the chip shows: its own pace, a quarter of the wall's


@pytest.fixture
def slow_table(tmp_path, pico_images):
    from uthctl.boards.pico import PicoBoard

    flash = tmp_path / "flash.img"
    pico_images.copy_to(None, flash)
    with contextlib.ExitStack() as stack:
        board = PicoBoard(flash=flash, throttle=THROTTLE)
        stack.callback(board.stop)
        board.start()
        assert board.wait_started(BOOT_WAIT / THROTTLE)["state"] == "unconfigured"
        link = stack.enter_context(Link(board.serial_path, timeout=WAIT))
        rig = stack.enter_context(Rig(board.rig_address, timeout=CLIENT_TIMEOUT))
        yield link, rig


def configure(link, rig):
    rig.key(True)
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), WAIT,
                 interval=0.2, what="service mode")
    assert link.command("config", mystery="A1")["ok"]
    rig.key(False)
    link.wait_event("reset")


def play_round(link, rig):
    for seat in SEATS:
        assert rig.chip(seat, True)["applied"] is True
    rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), WAIT, interval=0.2,
                 what="bet lights on")
    assert rig.press_lock()["applied"] is True
    link.wait_event("locked")
    contributions = [link.wait_event("contribution") for _ in SEATS]
    for seat in SEATS:
        assert rig.chip(seat, False)["applied"] is True
    rig.wait_for(lambda s: lit(s["bet_lights"]) == [], WAIT, interval=0.2,
                 what="the round's end")
    return sorted(event["seat"] for event in contributions)


def test_rounds_a_minute_apart_on_a_slowed_chip_lose_no_input(slow_table):
    link, rig = slow_table
    configure(link, rig)
    assert play_round(link, rig) == list(SEATS)
    time.sleep(PAUSE_S)
    assert rig.chip(SEATS[0], True)["applied"] is True  # within the client's own 5 s
    assert rig.chip(SEATS[0], False)["applied"] is True
    assert play_round(link, rig) == list(SEATS)
    time.sleep(PAUSE_S)
    assert play_round(link, rig) == list(SEATS)
    state = rig.state()
    # Held to a quarter of real time: the chip's speed says so (the host may slow it more).
    assert 0 < state["chip_speed"] <= THROTTLE * 1.1
    assert state["chip_behind_s"] > PAUSE_S  # a quarter speed for minutes: far behind
