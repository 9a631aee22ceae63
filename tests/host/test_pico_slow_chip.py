# The emulated Pico held to a twentieth of real time (the rig's `throttle`),
# as a busy host leaves it, driven with the interactive table's own waits:
# its host link's 3 s for a command and the rig client's 5 s. Each wait is
# counted on the chip's clock as well as the wall's (links/chip_clock.py), so
# the configuration's flash write, LOCK and a 2.5 s hold of LOCK, which take
# the chip 20 to 50 s of the wall's here, are waited for and not called
# silent. About 2 minutes: `make test-pico`'s alone (pico_full).
import contextlib
import time

import pytest
from pico_target import BOOT_WAIT

from uthctl.boards import pico_image
from uthctl.boards.max7219_model import reading
from uthctl.links.board_link import Link
from uthctl.links.chip_clock import RigChipClock
from uthctl.links.rig import Rig, lit
from uthctl.links.rig_transport import parse_address
from uthctl.tui.board_feed import COMMAND_TIMEOUT, BoardFeed
from uthctl.tui.hands import REOPEN_HOLD_S

WHY_NOT = pico_image.unavailable()
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason="emulated Pico: %s" % WHY_NOT),
              pytest.mark.board, pytest.mark.pico, pytest.mark.pico_full]

SHARE = 0.05  # the chip's seconds a wall second
RIG_TIMEOUT = 5.0  # `uthctl rig`'s and the table's own
SEATS = (2, 5)
WATCH = 600.0  # for what the chip shows, polled through the rig's state (the supervisor's)


@pytest.fixture
def slowed_table(tmp_path, pico_images):
    from uthctl.boards.pico import PicoBoard

    flash = tmp_path / "flash.img"
    pico_images.copy_to(None, flash)
    with contextlib.ExitStack() as stack:
        board = PicoBoard(flash=flash)
        stack.callback(board.stop)
        board.start()  # booted at full speed, then slowed: the boot is not what is tested
        assert board.wait_started(BOOT_WAIT)["state"] == "unconfigured"
        rig = stack.enter_context(Rig(board.rig_address, timeout=RIG_TIMEOUT))
        assert rig.request(op="throttle", share=SHARE)["share"] == SHARE
        link = stack.enter_context(Link(board.serial_path, timeout=COMMAND_TIMEOUT))
        clock = RigChipClock(parse_address(board.rig_address))
        stack.callback(clock.close)
        feed = BoardFeed(link, clock=clock)
        feed.start()
        stack.callback(feed.join, 5.0)
        stack.callback(feed.stop)
        yield feed, rig


def chip_s(rig):
    return rig.request(op="time")["emulated_ns"] / 1e9


def test_a_chip_at_a_twentieth_of_real_time_answers_within_the_tables_own_waits(slowed_table):
    feed, rig = slowed_table
    chip_from, wall_from = chip_s(rig), time.monotonic()
    rig.key(True)
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), WATCH, interval=0.5,
                 what="service mode")
    assert feed.command("config", mystery="A1")["ok"]  # a flash write at a twentieth
    rig.key(False)
    for seat in SEATS:
        assert rig.chip(seat, True)["applied"] is True
    rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), WATCH, interval=0.5,
                 what="bet lights on")
    assert rig.press_lock()["applied"] is True
    assert feed.command("status")["state"] == "locked"
    # LOCK held past its 2 s reopens betting; the hold alone is 50 s of the wall's here.
    assert rig.press_lock(hold_ms=int(REOPEN_HOLD_S * 1000))["applied"] is True
    assert feed.command("status")["state"] == "betting"
    share = (chip_s(rig) - chip_from) / (time.monotonic() - wall_from)
    assert 0 < share <= SHARE * 1.05  # held there throughout (the host may slow it more)
