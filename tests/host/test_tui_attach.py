# `uthctl sim --port PORT`: the interactive table attached to a board that
# runs already (here one the test starts, headless, reached by its pty as a
# real board's /dev/ttyACM0 would be), with and without its rig. The
# terminal is read as test_tui.py reads it. Select with -k tui.
#
# Expected figures from 653b.1(c)(4) as typed in test_tui.py (A1: $1 minimum
# wager, 2%, $100-$200), not from the firmware.
import os
import subprocess
import sys
import time

import pytest
from test_tui import (
    A1_CENTS_PER_SEAT,
    A1_MINIMUM_CENTS,
    COLS,
    DISPLAY_WAIT,
    Terminal,
    meter_line,
    money,
    require_micropython,
    seat_row,
)

from table.controller import LOCKED, NOT_CONFIGURED
from uthctl.boards.virtual import VirtualBoard
from uthctl.links.board_link import Link, LinkError
from uthctl.links.rig import Rig, lit

ROWS = 40  # room for a dozen events below the table
BOOT_WAIT = 60.0


def attach(port, *extra):
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
    env.pop("LC_ALL", None)
    env.pop("NO_COLOR", None)
    argv = [sys.executable, "-m", "uthctl.cli", "sim", "--port", port, *extra]
    return Terminal(argv, env, COLS, ROWS)


def quit_table(term):
    # q: the program ends (exit 0); what it printed last.
    term.keys("q")
    deadline = time.monotonic() + 10
    while term.proc.poll() is None and time.monotonic() < deadline:
        term.pump(0.1)
    assert term.proc.poll() == 0
    while term.pump(0.05):
        pass
    return term.output


def header(term):
    return term.row("uthctl sim")


@pytest.fixture
def board(tmp_path):
    require_micropython()
    with VirtualBoard(flash=tmp_path / "flash.img") as vb:
        assert vb.wait_started(20)["state"] == "unconfigured"
        yield vb


def configure_a1(term, keys_held_by):
    # Service mode, A1 from the menu, service mode off: by the table's keys
    # (s) or by the test's own hand on the rig.
    keys_held_by(True)
    term.wait_for(lambda t: "state SERVICE" in header(term), 10, "service mode")
    term.keys("c")
    term.wait_text("choose a configuration")
    term.keys("A1\r")
    term.wait_text("config A1 (was none)")
    keys_held_by(False)
    term.wait_for(lambda t: "state BETTING" in header(term), 10, "betting")


@pytest.mark.board
def test_tui_attached_with_a_rig_plays_resets_and_powers_the_board(board):
    term = attach(board.serial_path, "--rig", board.rig_address)
    try:
        term.wait_text("attached to %s, rig %s" % (board.serial_path, board.rig_address), 10)
        term.wait_for(lambda t: "state UNCONFIGURED" in header(term), 10, "the board's state")
        term.wait_text('display "no CFG"')
        configure_a1(term, lambda held: term.keys("s"))

        # A round through the rig's pins: lights, the locked round, the display.
        term.keys("12")
        term.wait_for(lambda t: "● ON" in seat_row(term, 1) and "● ON" in seat_row(term, 2),
                      what="bet lights 1 and 2")
        term.keys("l")
        after_one = A1_MINIMUM_CENTS + 2 * A1_CENTS_PER_SEAT
        term.wait_text("locked round 1, meter $%s" % money(after_one))
        term.wait_text("contribution seat 2 $0.02")
        term.wait_for(lambda t: "$%s" % money(after_one) in meter_line(term),
                      what="the meters over the host link")
        term.wait_text('display "%s"' % money(after_one), DISPLAY_WAIT)
        term.keys("0")
        term.wait_for(lambda t: "state BETTING" in header(term), 10, "the round's end")

        # r: a power cycle through the rig; the table carries on with the board.
        term.keys("r")
        term.wait_text("board reset (a power cycle)", 10)
        term.wait_text("board started (betting)", 20)
        term.keys("3")
        term.wait_for(lambda t: "● ON" in seat_row(term, 3), what="bet light 3")
        term.keys("l")
        after_two = after_one + A1_CENTS_PER_SEAT
        term.wait_text("locked round 2, meter $%s" % money(after_two), 10)
        term.keys("0")
        term.wait_for(lambda t: "state BETTING" in header(term), 10, "round 2's end")

        # o: power off (the header says so), o again: the controller is back.
        term.keys("o")
        term.wait_for(lambda t: "state OFF" in header(term), 10, "the board off")
        term.keys("o")
        term.wait_for(lambda t: "state BETTING" in header(term), 20, "the board on again")
        term.wait_for(lambda t: "$%s" % money(after_two) in meter_line(term),
                      what="the meter kept through the power cut")
        assert b"left the board at %s running" % board.serial_path.encode() in quit_table(term)
    finally:
        term.close()
    assert board.alive()  # the table leaves the board it attached to running


@pytest.mark.board
def test_tui_attached_without_a_rig_shows_the_board_and_sends_commands(board):
    table = Rig(board.rig_address)  # the table's own hands, not the program's
    term = attach(board.serial_path)
    try:
        term.wait_text("lights: no rig given", 10)
        term.wait_for(lambda t: "state UNCONFIGURED" in header(term), 10, "the board's state")
        term.wait_text('display "no CFG"')  # from the board's status
        # The port is held as mpremote holds it: a second program is refused.
        with pytest.raises(LinkError, match="another program holds it"):
            Link(board.serial_path, exclusive=True)

        # The keys a rig would answer are refused, and nothing moves.
        for key in "1lkro":
            term.keys(key)
            term.wait_text("no rig given: chips, LOCK, the key, auto-play, reset and power")
        assert table.state()["inputs"]["bet1"] == 0 and table.state()["boots"] == 1

        # The host link's commands work: configuration, payment.
        configure_a1(term, table.key)
        term.keys("p")
        term.wait_text("a validated hit will be paid by jackpot slip")
        term.wait_text("payment  jackpot slip")

        # The table plays by its own hands; the program sees the events and display.
        table.chip(1)
        table.wait_for(lambda s: lit(s["bet_lights"]) == [1], what="bet light 1")
        table.press_lock()
        after_one = A1_MINIMUM_CENTS + A1_CENTS_PER_SEAT
        term.wait_text("locked round 1, meter $%s" % money(after_one))
        term.wait_for(lambda t: term.row("in round").split()[:3] == ["in", "round", "1"],
                      what="seat 1 in the round")
        term.wait_text('display "%s"' % money(after_one), DISPLAY_WAIT)
        assert b"left the board at" in quit_table(term)
    finally:
        term.close()
        table.close()
    # Never a Ctrl-C: the controller still answers, the round still locked.
    with Link(board.serial_path) as link:
        assert link.command("status")["state"] == LOCKED


def test_tui_attach_refuses_what_would_start_a_board():
    for argv, words in ((["--rig", "127.0.0.1:1"], "--rig is for --port"),
                        (["--port", "/dev/null", "--headless"], "--headless starts a board"),
                        (["--port", "/dev/null", "--board", "rp2040_pico"],
                         "--board starts a board")):
        done = subprocess.run([sys.executable, "-m", "uthctl.cli", "sim", *argv],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=30)
        assert done.returncode == 2 and words in done.stderr, (argv, done.stderr)


@pytest.mark.board
@pytest.mark.pico
@pytest.mark.pico_quick
def test_tui_attached_to_the_emulated_pico_shows_its_state(pico_images, tmp_path):
    from targets import PicoTarget

    from uthctl.boards.pico import PicoBoard

    flash = tmp_path / "pico.img"
    pico_images.copy_to(None, flash)
    with PicoBoard(flash=flash) as pico:
        assert pico.wait_started(BOOT_WAIT)["state"] == "unconfigured"
        term = attach(pico.serial_path)
        # Waits that only bound a hang, given the emulated Pico's stretch.
        stretch = PicoTarget.stretch
        try:
            term.wait_for(lambda t: "state UNCONFIGURED" in header(term), 20 * stretch,
                          "the Pico's state")
            term.wait_text('display "no CFG"', 10 * stretch)
            term.wait_text("lights: no rig given", 10 * stretch)
            quit_table(term)
        finally:
            term.close()
        with Link(pico.serial_path) as link:  # still running its controller
            assert link.command("status")["state"] == NOT_CONFIGURED


class _Port:
    # A Link's face to BoardFeed: a port that fails after `lasts` reads, or never.
    def __init__(self, name, lasts=None):
        self.port = name
        self.lasts = lasts
        self.other = []
        self.sent = []
        self.closed = False
        self.at_repl = None

    def read_message(self, timeout):
        if self.lasts is not None:
            if self.lasts <= 0:
                raise OSError("device disconnected")
            self.lasts -= 1
        time.sleep(min(timeout, 0.01))
        return None

    def repl_evidence(self, since=0.0):
        return None

    def send(self, message):
        if self.closed:
            raise OSError("port closed")
        self.sent.append(message["cmd"])

    def close(self):
        self.closed = True


def test_tui_host_link_reopens_a_port_that_vanished():
    from uthctl.tui.board_feed import BoardFeed

    first, second = _Port("/dev/ttyACM0", lasts=3), _Port("/dev/ttyACM0")
    opened = []
    host = BoardFeed(first, poll_s=0.05, reopen=lambda: opened.append(second) or second)
    host.start()
    try:
        deadline = time.monotonic() + 5
        while not second.sent and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        host.stop()
        host.join(2)
    assert first.closed and opened == [second] and host.link is second
    assert ("note", "host link: /dev/ttyACM0 reopened") in host.inbox
    assert second.sent[:2] == ["status", "meters"]  # polled again on the new port
