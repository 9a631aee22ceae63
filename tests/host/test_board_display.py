# The LED meter watched on the virtual board, whose display answers as a
# TM1637 does (boards/sim/board.py): the rig makes it stop acknowledging
# (`display_fault`), and the table refuses LOCK while it does, logs the fault
# and sends it as an event, then logs its clearing once the display answers
# again (13:69E-1.39A(b)(2), 1.39B(g)). The emulated Pico drives a MAX7219,
# which has no readback: its display is unsensed (docs/boards.md).
import contextlib

import pytest

from uthctl.boards.max7219_model import reading
from uthctl.links.rig import lit

REASON = "display: the LED meter does not acknowledge"


@pytest.fixture
def table(tmp_path, target):
    with contextlib.ExitStack() as stack:
        board = target.board(tmp_path / "flash.img")
        stack.callback(board.stop)
        link = stack.enter_context(target.link(board.serial_path, timeout=10.0))
        rig = stack.enter_context(target.rig(board.rig_address))
        yield board, link, rig


@pytest.mark.target("sim")
def test_a_display_that_stops_acknowledging_refuses_lock_until_it_answers(table):
    board, link, rig = table
    link.wait_ready()
    rig.key(True)
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service mode")
    assert link.command("config", mystery="A1")["ok"]
    rig.key(False)
    link.wait_event("reset")
    status = link.command("status")
    assert (status["display_fault"], status["display_sensed"]) == (None, True)

    assert rig.display_fault(True)["applied"] is True
    raised = link.wait_event("fault")
    assert raised["source"] == "display" and raised["reason"].startswith(REASON), raised
    assert link.command("status")["display_fault"] == raised["reason"]
    rig.chip(2, True)
    rig.wait_for(lambda s: lit(s["bet_lights"]) == [2], what="the bet light")
    rig.press_lock()
    refused = link.wait_event("refused")
    assert refused["reason"] == "no LOCK while the " + raised["reason"]
    meters = link.command("meters")["meters"]
    assert meters["round"] == 0 and meters["log_seq"] == raised["seq"]

    rig.display_fault(False)
    cleared = link.wait_event("fault_cleared")
    assert (cleared["source"], cleared["reason"]) == ("display", raised["reason"])
    assert cleared["seq"] == raised["seq"] + 1
    assert link.command("status")["display_fault"] is None
    rig.press_lock()
    assert link.wait_event("locked")["round"] == 1


@pytest.mark.pico_quick
def test_a_max7219_board_says_its_display_is_unsensed(table, target):
    # The Pico and ESP32 boards drive a MAX7219, which is never read back:
    # status says so, and no display fault is ever raised there. The virtual
    # board's display answers as a TM1637 does: sensed.
    board, link, rig = table
    link.wait_ready()
    status = link.command("status")
    assert (status["display_sensed"], status["display_fault"]) == (target.name == "sim", None)
