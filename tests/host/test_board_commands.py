# uthctl status, config and payment against a running board through its pty,
# exactly as against /dev/ttyACM0: the virtual board, and for the read-only
# ones the emulated Pico too (`pytest --target both`).
#
# Expected figures are 653b.1(c)(4) as typed here, not the firmware's tables:
# A1 is a $1 minimum wager, 2%, hitting by $100-$200; C1 a $1 minimum wager,
# 2%, $250-$500. A configuration changes only in service mode (key held) with
# the meter at a reset (docs/host-link.md).
import io

import pytest
from cli_board import configured

from uthctl.boards.max7219_model import reading
from uthctl.cli import main as uthctl
from uthctl.commands import config as cmd_config
from uthctl.commands.status import format_status
from uthctl.links.rig import lit

DOLLAR = 1_000_000  # micro-dollars
A1 = {"name": "A1", "min_wager_cents": 100, "minimum": 100 * DOLLAR, "maximum": 200 * DOLLAR,
      "rate_bp": 200, "section": "653b.1(c)(4)", "effective": "2021-09-04",
      "expires": "2024-09-04"}
C1_MINIMUM = 250 * DOLLAR
A1_PER_SEAT = 2 * 10_000  # a $1 chip at 2%: 2 cents

pytestmark = pytest.mark.usefixtures("micropython")


# ---- status ----


@pytest.mark.pico_quick
def test_status_of_a_new_board(cli_table, capsys):
    shown = cli_table.run(capsys, "status", "--json")
    assert shown["status"]["state"] == "unconfigured" and shown["status"]["fault"] is None
    assert shown["meters"]["phase"] == "unconfigured" and shown["meters"]["meter"] == 0
    assert shown["config"] is None
    text = cli_table.run(capsys, "status")
    assert text.splitlines()[0].startswith("state          not configured")
    assert "configuration  none" in text and "meter          $0.00" in text
    firmware = [line for line in text.splitlines() if line.startswith("firmware")]
    assert len(firmware) == 1
    if "version" in shown["status"]:  # the firmware's own version, once it reports one
        assert shown["status"]["version"] in firmware[0]


def test_status_after_a_round_names_the_locked_seats(cli_table, capsys):
    configured(cli_table, capsys)
    for seat in (2, 5):
        cli_table.rig.chip(seat, True)
    cli_table.rig.wait_for(lambda s: lit(s["bet_lights"]) == [2, 5], what="bet lights")
    cli_table.rig.press_lock()
    cli_table.rig.wait_for(lambda s: reading(s["display"]) == reading("100.04"), 7.0,
                       what="the meter after the round")
    shown = cli_table.run(capsys, "status", "--json")
    assert shown["status"]["state"] == "locked" and shown["status"]["locked_in"] == [2, 5]
    assert shown["meters"]["meter"] == A1["minimum"] + 2 * A1_PER_SEAT
    text = cli_table.run(capsys, "status")
    assert "locked in      seats 2, 5" in text and "meter          $100.04" in text
    assert "A1: $1 minimum progressive wager, $100.00-$200.00, 2%" in text
    assert "653b.1(c)(4), effective 2021-09-04, expires 2024-09-04" in text


def test_status_shows_the_firmware_version_when_the_board_sends_it():
    status = {"state": "betting", "fault": None, "payment": "table_inventory",
              "locked_in": [], "stale_chips": [3], "config": "A1", "version": "1.4.0",
              "build": "3f2a9c1"}
    lines = format_status(status, None, "the board refused meters: store fault").splitlines()
    assert "firmware       version 1.4.0, build 3f2a9c1" in lines
    assert "stale chips    seats 3" in lines
    assert "meters         unavailable: the board refused meters: store fault" in lines
    faulted = {"state": "fault", "fault": "store: no readable meter record",
               "payment": "table_inventory", "locked_in": [], "stale_chips": []}
    lines = format_status(faulted, None, "the board refused meters: store fault").splitlines()
    assert lines[:3] == ["state          FAULT (the table plays nothing until a technician "
                         "clears it)", "fault          store: no readable meter record",
                         "configuration  unknown (no meter record read)"]
    exposed = format_status(dict(status, exposed=True), None, "-")
    assert "EXPOSED        this cycle's hit value was written to flash" in exposed
    del status["version"], status["build"]
    assert "firmware       not reported by this firmware" in format_status(status, None, "-")
    declared = format_status(dict(status, qualify="progressive_spot_only",
                                  warnings=["qualify=progressive_spot_only: needs approval"]),
                             None, "-").splitlines()
    assert declared[-2:] == ["qualify        progressive spot only",
                             "WARNING        qualify=progressive_spot_only: needs approval"]


def test_status_of_a_faulted_board_names_the_fault(tmp_path, capsys):
    from uthctl.boards.virtual import VirtualBoard

    junk = tmp_path / "junk.img"
    junk.write_bytes(b"not a littlefs image\n" * 1000)
    with VirtualBoard(flash=junk) as vb:
        assert vb.wait_started()["state"] == "fault"
        assert uthctl(["status", "--port", vb.serial_path]) == 0
        text = capsys.readouterr().out
        assert uthctl(["config", "--port", vb.serial_path]) == 2
        refused = capsys.readouterr().err
    assert text.startswith("state          FAULT")
    assert "does not mount" in text and "configuration  unknown" in text
    assert refused.startswith("uthctl: error: cannot read the configuration: the board refused "
                              "meters: fault: ")


# ---- config: show ----


@pytest.mark.pico_quick
def test_config_shows_the_configuration_in_force(cli_table, capsys):
    configured(cli_table, capsys)
    shown = cli_table.run(capsys, "config", "--json")
    assert {key: shown["config"][key] for key in A1} == A1
    assert (shown["state"], shown["phase"], shown["at_reset"]) == ("betting", "running", True)
    assert shown["changeable"] is False  # not in service mode
    text = cli_table.run(capsys, "config")
    assert text.startswith("configuration  A1: $1 minimum progressive wager, $100.00-$200.00")
    assert "not in service mode (the table is betting)" in text


# ---- config: a change ----


def test_config_changes_in_service_mode_at_a_reset(cli_table, capsys):
    changed = configured(cli_table, capsys, "A1")
    assert changed["changed"] is True and changed["from"] is None
    assert changed["meter_after"] == A1["minimum"] == changed["meters"]["meter"]
    # An untouched cycle ends: A1's $100 seed is withdrawn, C1's $250 seeded.
    cli_table.key(True)
    text = cli_table.run(capsys, "config", "c1", "--yes")
    assert "change the Mystery configuration A1 -> C1" in text
    assert "C1: $1 minimum progressive wager, $250.00-$500.00, 2%" in text
    assert "meter        $100.00 -> $250.00" in text
    meters = cli_table.run(capsys, "meters", "--json")
    assert (meters["config"], meters["meter"], meters["cycle"]) == ("C1", C1_MINIMUM, 2)
    assert meters["seeded"] == A1["minimum"] + C1_MINIMUM - A1["minimum"]


def test_config_refused_outside_service_mode(cli_table, capsys):
    configured(cli_table, capsys, "A1")
    error = cli_table.run(capsys, "config", "B2", "--yes", code=2)
    assert error == ("uthctl: error: not changed: not in service mode (the table is betting): "
                     "hold the key switch, then change it")
    assert cli_table.run(capsys, "meters", "--json")["config"] == "A1"


def test_config_refused_with_the_meter_not_at_a_reset(cli_table, capsys):
    configured(cli_table, capsys, "A1")
    cli_table.play_round((1, 3))
    cli_table.key(True)
    error = cli_table.run(capsys, "config", "B2", "--yes", code=2)
    assert error == ("uthctl: error: not changed: the meter is not at a reset (cycle 1 has "
                     "played 1 round since its reset, meter $100.04): a configuration "
                     "changes only before a cycle's first round, or once its hit is validated")
    meters = cli_table.run(capsys, "meters", "--json")
    # config, reset, service mode left, the round, service mode entered
    assert (meters["config"], meters["round"], meters["log_seq"]) == ("A1", 1, 5)


def test_config_reports_the_boards_own_refusal(cli_table, capsys, monkeypatch):
    # Were the table to leave service mode between the check and the command
    # (the key released), the board's refusal is what is reported.
    configured(cli_table, capsys, "A1")
    monkeypatch.setattr(cmd_config, "_why_not", lambda status, meters: None)
    error = cli_table.run(capsys, "config", "B2", "--yes", code=2)
    assert error == ("uthctl: error: the board refused config: configuration changes only in "
                     "service mode")


def test_config_asks_before_it_changes(cli_table, capsys, monkeypatch):
    cli_table.key(True)
    for answer, code in (("n\n", 2), ("y\n", 0)):
        monkeypatch.setattr("sys.stdin", _Terminal(answer))
        out = cli_table.run(capsys, "config", "A1", code=code)
        if code:
            assert out == "uthctl: error: not changed: not confirmed"
            assert cli_table.run(capsys, "meters", "--json")["config"] is None
    assert "none -> A1" in out and "Change it? [y/N]" in out
    assert "changed: A1 in force, cycle 1, meter $100.00" in out


def test_config_without_a_terminal_or_yes_is_refused(cli_table, capsys, monkeypatch):
    cli_table.key(True)
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))  # piped: not a terminal
    error = cli_table.run(capsys, "config", "A1", code=2)
    assert error == ("uthctl: error: not changed: no terminal to ask on; give --yes to change "
                     "without asking")
    assert cli_table.run(capsys, "meters", "--json")["config"] is None


def test_config_refuses_an_unknown_name_before_opening_the_port(capsys):
    assert uthctl(["config", "Z9", "--yes", "--port", "/nonexistent/tty"]) == 2
    assert capsys.readouterr().err == (
        "uthctl: error: unknown configuration 'Z9': one of A1 A2 A5 B1 B2 B5 C1 C2 C5 D1 D2 "
        "D5\n")


class _Terminal(io.StringIO):
    def isatty(self):
        return True


# ---- payment ----


def test_payment_chooses_the_method(cli_table, capsys):
    assert cli_table.run(capsys, "status", "--json")["status"]["payment"] == "table_inventory"
    assert cli_table.run(capsys, "payment", "jackpot_slip", "--json") == {"method": "jackpot_slip"}
    assert cli_table.run(capsys, "status", "--json")["status"]["payment"] == "jackpot_slip"
    text = cli_table.run(capsys, "payment", "table_inventory")
    assert text.startswith("payment        table inventory")
    assert cli_table.run(capsys, "status", "--json")["status"]["payment"] == "table_inventory"


def test_payment_refuses_a_bad_method(capsys):
    assert uthctl(["payment", "cash", "--port", "/nonexistent/tty"]) == 2
    assert capsys.readouterr().err == (
        "uthctl: error: argument method: invalid choice: 'cash' (choose from "
        "'table_inventory', 'jackpot_slip') (see uthctl payment --help)\n")
