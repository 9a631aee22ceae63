# The small promises of uthctl's output: a hand's category by its own name,
# the settings listing in columns that hold, a mistyped subcommand answered
# with the nearest ones, and a port that is no board's failing in a second,
# with no advice to reset a board that is not there.
import os
import tty

import pytest
from serial.tools.list_ports_common import ListPortInfo

from uthctl.analysis.meters_text import SETTING_WIDTH, setting_lines
from uthctl.cli import main
from uthctl.links import ports

EVERY_SETTING = {"paytables": {"trips": "E", "bad_beat": "C", "play_the_board": "A",
                               "ultimate_pairs": "F"},
                 "bad_beat_mode": "two_way", "max_payout_cents": {"trips": 50000},
                 "bad_beat_on_fold": "action", "reset": "carry", "wager_cents": None}


def test_hand_prints_the_category_as_every_other_command_names_it(capsys):
    assert main(["hand", "As", "Ks", "Qs", "Js", "Ts", "2c", "3d"]) == 0
    assert capsys.readouterr().out == "royal_flush: As Ks Qs Js Ts\n"


def test_the_settings_listing_keeps_its_columns():
    lines = setting_lines(EVERY_SETTING)
    names = [line.split()[0] for line in lines if not line.startswith(" ")]
    assert names == sorted(EVERY_SETTING)  # each setting once, in order
    long_values = ['paytables        {"trips": "E", "bad_beat": "C", "play_the_board": "A", '
                   '"ultimate_pairs": "F"}']
    meaning_at = len("bad_beat_on_fold") + 1 + len('"two_way"') + 1
    for line in lines:
        if line in long_values:
            continue  # a value too long for its column has the line to itself
        assert len(line) <= SETTING_WIDTH, line
        assert line[meaning_at - 1] == " " and line[meaning_at] != " ", line
    assert long_values[0] in lines


@pytest.mark.parametrize("argv, meant", [
    (["staus", "--port", "x"], "did you mean status?"),
    (["rig", "--sim", "1", "chp", "2", "on"], "did you mean chip?"),
    (["audt"], "did you mean audit?"),
])
def test_a_mistyped_subcommand_gets_the_nearest(argv, meant, capsys):
    assert main(argv) == 2
    assert meant in capsys.readouterr().err


def test_nothing_near_gets_no_guess(capsys):
    assert main(["xyzzy"]) == 2
    assert "did you mean" not in capsys.readouterr().err


@pytest.fixture
def silent_uart(monkeypatch):
    # A pty with nothing behind it, listed as the machine's own serial port is
    # (no USB id), as /dev/ttyS0 is with nothing on its wires.
    master, slave = os.openpty()
    tty.setraw(slave)
    device = os.ttyname(slave)
    monkeypatch.setattr(ports, "comports",
                        lambda: [ListPortInfo(device, skip_link_detection=True)])
    yield device
    os.close(slave)
    os.close(master)


def test_a_port_that_is_no_board_fails_at_once_without_reset_advice(silent_uart, capsys):
    assert main(["status", "--port", silent_uart, "--timeout", "60"]) == 2
    err = capsys.readouterr().err.strip()
    # Not its 60 s timeout: "nothing answers" is said only while the link
    # still waits (board_link.py's _check_board); the timeout says "no reply".
    # How soon is a figure of make bench (bench/link_answers.py).
    assert err.startswith("uthctl: error: nothing answers on %s" % silent_uart)
    assert "not a board's" in err and "--port auto" in err
    assert "reset" not in err and "\n" not in err
