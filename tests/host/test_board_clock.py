# `uthctl clock`: the board's calendar clock read over the host link; set from
# the host's in service mode only; `status` says whether it is set. The
# virtual board's clock starts as the host's, the emulated Pico's at
# 2021-01-01 and the emulated ESP32's at 2000-01-01 (unset, as a chip with no
# battery): after --set each reads the host's date, which is what the test
# knows independently (time.localtime).
import subprocess
import sys
import time

import pytest

from uthctl.links.rig import lit

pytestmark = [pytest.mark.usefixtures("micropython"), pytest.mark.pico_quick]


def host_dates():
    # The host's date now and a moment later: a test may cross midnight.
    return {time.strftime("%Y-%m-%d", time.localtime(time.time() + lag)) for lag in (0, 60)}


def test_clock_is_read_set_in_service_mode_and_shown_by_status(cli_table, capsys, target):
    before = cli_table.run(capsys, "clock", "--json")
    assert before["clock"] == ("set" if target.clock_set_at_power_on else "unset")
    assert "state          %s" % ("set" if target.clock_set_at_power_on else "UNSET") in \
        cli_table.run(capsys, "clock")
    refused = cli_table.run(capsys, "clock", "--set", code=2)
    assert "service mode" in refused  # not set while the table plays
    assert cli_table.run(capsys, "clock", "--json")["datetime"][:3] == before["datetime"][:3]

    cli_table.key(True)
    done = cli_table.run(capsys, "clock", "--set", "--json")
    cli_table.key(False)
    assert done["clock"] == "set" and done["date"] in host_dates()
    assert done["was"][:3] == before["datetime"][:3]
    status = cli_table.run(capsys, "status")
    assert "clock          set (%s)" % done["date"] in status


def test_a_key_held_mid_round_is_told_the_round_must_end_then_sets_the_clock(cli_table,
                                                                             capsys):
    # The rig holds the key while a round is locked: the table says it waits
    # for the round's end (not "hold the key switch" to the person holding
    # it), and goes to service mode when the chips are taken.
    from cli_board import configured

    from uthctl.boards.max7219_model import reading

    configured(cli_table, capsys)
    rig = cli_table.rig
    rig.chip(2, True)
    rig.wait_for(lambda s: 2 in lit(s["bet_lights"]), what="the bet light")
    rig.press_lock()
    rig.key(True)
    assert "locked" in cli_table.run(capsys, "status")
    refused = cli_table.run(capsys, "clock", "--set", code=2)
    assert "a round is in play: the key held when it ends begins service mode" in refused
    assert "hold the key switch" not in refused
    rig.chip(2, False)
    service = reading("SErvICE")
    rig.wait_for(lambda s: reading(s["display"]) == service, what="service mode")
    assert cli_table.run(capsys, "clock", "--set", "--json")["clock"] == "set"
    cli_table.key(False)


def test_clock_set_with_the_controller_stopped_goes_through_mpremote(cli_table, capsys,
                                                                   target):
    # `resume`: the board is at its REPL already (no soft reset, which panics
    # the emulated ESP32: docs/boards.md); the wait an emulated chip's UART needs.
    mpremote = [sys.executable, "-m", "mpremote", "connect", cli_table.port, "resume"]
    cli_table.key(True)  # the technician's way to the REPL: the key held, `repl`
    assert cli_table.run(capsys, "repl", "--json")["exposed"] is False  # unconfigured
    cli_table.rig.key(False)
    wrong = "import machine; machine.RTC().datetime((2022, 3, 4, 4, 5, 6, 7, 0))"
    subprocess.run(mpremote + ["exec", wrong], check=True, capture_output=True,
                   timeout=target.wait(60.0))
    assert cli_table.run(capsys, "clock", "--json")["date"] == "2022-03-04"
    done = cli_table.run(capsys, "clock", "--set", "--json")
    assert done["date"] in host_dates() and done["clock"] == "set"
    assert "mpremote" in done["by"] and "reset" in done["by"]  # and how to start it again
