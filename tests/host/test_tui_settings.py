# `uthctl sim` from nothing but itself: it holds its serial port, so a second
# program is told so (and never told to reset the board); in service mode its
# settings screen (t) sets the paytables, which the typed round (e) needs.
# The real command in a pseudo-terminal, read back as test_tui.py reads it.
import re
import subprocess
import sys

import pytest
from test_tui import require_micropython, start_sim

from mystery.settings import NAMES

pytestmark = pytest.mark.board

DOWN = "\x1bOB"  # the down arrow in keypad mode, as an xterm sends it


def serial_of(term):
    found = re.search(r"serial (/dev/\S+?),", term.wait_text("serial /dev/", 20.0))
    assert found, term.text()
    return found.group(1)


def test_a_second_program_on_the_tables_port_is_told_it_is_held(tmp_path):
    require_micropython()
    term = start_sim(tmp_path)
    try:
        port = serial_of(term)
        term.wait_text("state UNCONFIGURED", 20.0)
        done = subprocess.run([sys.executable, "-m", "uthctl.cli", "set", "--port", port],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        assert "another program holds it" in done.stderr
        assert "reset" not in done.stderr  # the board is fine: it is only busy
    finally:
        term.close()


def test_the_settings_screen_sets_the_paytables_then_a_typed_round_settles(tmp_path):
    require_micropython()
    term = start_sim(tmp_path)
    try:
        term.wait_text("state UNCONFIGURED", 20.0)
        term.keys("t")
        term.wait_text("settings change only in service mode")
        term.keys("s")
        term.wait_text("state SERVICE")
        term.keys("c")
        term.wait_text("choose a configuration")
        term.keys("A1\r")
        term.wait_text("config A1 (was none)")
        term.keys("t")
        term.wait_text("table settings (service mode)")
        term.keys(DOWN * NAMES.index("paytables") + "\r")  # the screen lists NAMES in order
        term.wait_text("= [{}]  (typing replaces it)")  # the value in force, selected
        term.keys('{"trips": "X"}\r')  # typed over it, as the README says; no such paytable
        term.wait_text("paytables: ")
        term.keys("\x7f" * 3 + 'E"}\r')
        term.wait_text('paytables is {"trips": "E"} (was {}), logged')
        term.keys("\x1b")
        term.wait_text("settings closed")
        term.keys("s")
        term.wait_text("state BETTING")
        term.keys("e")
        term.keys("QsKs 9sTsJs9c9d 1:9h2c\r")
        # Seat 1: four nines (9h with the board's three). Trips paytable E pays
        # quads 30 to 1 (653b.2): $150.00 on the table's $5 stake.
        term.wait_text("seat 1: trips four of a kind +$150.00", 20.0)
    finally:
        term.close()
