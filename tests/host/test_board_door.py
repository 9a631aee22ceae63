# The controller compartment's door on a board (25 CFR 547.10(b);
# 13:69E-1.39C(b)(5)): its switch on U2's GPA3, driven by the rig's `door`
# (1: open). Opening it is a `door` record of the signed log, sent as its
# event; LOCK is refused while it is open; closing it is a record too. On the
# virtual board, and on the emulated Pico running the project's image (its
# expander models driven as the switch would drive the pin).
import contextlib

import pytest

from uthctl.boards.max7219_model import reading
from uthctl.cli import main as uthctl
from uthctl.links import logexport
from uthctl.links.rig import lit

REFUSAL = "no LOCK while the controller's door is open: close it"


@pytest.fixture
def table(tmp_path, target):
    with contextlib.ExitStack() as stack:
        board = target.board(tmp_path / "flash.img")
        stack.callback(board.stop)
        link = stack.enter_context(target.link(board.serial_path, timeout=10.0))
        rig = stack.enter_context(target.rig(board.rig_address))
        yield board, link, rig


def _configured(link, rig):
    link.wait_ready()
    rig.key(True)
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service mode")
    assert link.command("config", mystery="A1")["ok"]
    rig.key(False)
    link.wait_event("reset")
    while link.wait_event("service")["entered"]:  # service mode left: its record written
        pass


@pytest.mark.pico_quick
def test_an_open_door_is_logged_refuses_lock_and_its_closing_is_logged(table):
    board, link, rig = table
    _configured(link, rig)
    assert link.command("status")["door"] == "closed"

    rig.door(True)
    opened = link.wait_event("door")
    assert opened["state"] == "open" and "seq" in opened, opened
    assert link.command("status")["door"] == "open"
    rig.chip(2, True)
    rig.wait_for(lambda s: lit(s["bet_lights"]) == [2], what="the bet light")
    rig.press_lock()
    assert link.wait_event("refused")["reason"] == REFUSAL
    meters = link.command("meters")["meters"]
    assert meters["round"] == 0 and meters["log_seq"] == opened["seq"]

    rig.door(False)
    closed = link.wait_event("door")
    assert (closed["state"], closed["seq"]) == ("closed", opened["seq"] + 1)
    log = logexport.fetch_records(link, opened["seq"])
    assert [(r["ev"], r["state"]) for r in log] == [("door", "open"), ("door", "closed")]
    rig.press_lock()
    assert link.wait_event("locked")["round"] == 1


@pytest.mark.target("sim")
def test_a_door_open_at_power_up_is_logged_at_start(table, capsys):
    # Opened with `uthctl rig ... door open`, the rig's verb for a person.
    board, link, rig = table
    _configured(link, rig)
    assert uthctl(["rig", "--sim", board.rig_address, "door", "open"]) == 0
    assert "door opened" in capsys.readouterr().out
    first = link.wait_event("door")
    assert rig.state()["inputs"]["door"] == 1
    board.power(False)
    board.power(True)
    link.wait_ready()
    assert link.command("status")["door"] == "open"
    log = logexport.fetch_records(link, first["seq"])
    # The opening, then at the next start its `start` record and the door
    # found open.
    assert [(r["ev"], r.get("state")) for r in log] == [("door", "open"), ("start", None),
                                                        ("door", "open")]
