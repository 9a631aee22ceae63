# uthctl set against a running board through its pty, as against
# /dev/ttyACM0: the table's settings listed, changed in service mode after
# the change is stated, refused before anything is sent outside service mode
# or with a bad value, and the fixed progressive wager in force at LOCK.
#
# Expected figures are 653b.1(c)(4) as typed here: A1 is a $1 minimum
# progressive wager at 2%, a $100 minimum; so a $5 chip gives 10 cents.

import json

import pytest
from cli_board import configured

DOLLAR = 1_000_000  # micro-dollars
A1_MINIMUM = 100 * DOLLAR
FIVE_DOLLARS_AT_TWO_PERCENT = 10 * 10_000  # 10 cents in micro-dollars

pytestmark = pytest.mark.usefixtures("micropython")


def test_set_lists_changes_and_logs_a_setting_in_service_mode(cli_table, capsys):
    configured(cli_table, capsys, "A1")
    listed = cli_table.run(capsys, "set")
    by_name = {line.split()[0]: line for line in listed.splitlines()}
    assert by_name["reset"].startswith('reset            "carry"   after a hit')
    assert by_name["wager_cents"].startswith("wager_cents      null      each progressive")
    error = cli_table.run(capsys, "set", "wager_cents", "500", "--yes", code=2)
    assert error == ("uthctl: error: not changed: not in service mode (the table is betting): "
                     "hold the key switch, then change it")
    cli_table.key(True)
    error = cli_table.run(capsys, "set", "wager_cents", "50", "--yes", code=2)
    assert error.startswith("uthctl: error: not changed: wager_cents 50 is under "
                            "configuration A1's minimum progressive wager of 100 cents")
    text = cli_table.run(capsys, "set", "wager_cents", "500", "--yes")
    assert "change the setting wager_cents: null -> 500" in text
    assert "changed: wager_cents is 500 (was null), logged" in text
    cli_table.key(False)
    assert cli_table.run(capsys, "status", "--json")["status"]["settings"]["wager_cents"] == 500

    cli_table.play_round((2, 5))  # two $5 chips at A1's 2%
    meters = cli_table.run(capsys, "meters", "--json")
    assert meters["meter"] == A1_MINIMUM + 2 * FIVE_DOLLARS_AT_TWO_PERCENT
    assert "reset carry, wager_cents 500" in cli_table.run(capsys, "meters")


def test_config_refuses_a_configuration_the_fixed_wager_does_not_fit(cli_table, capsys):
    # A5's minimum progressive wager is $5: a $3 fixed wager does not qualify.
    configured(cli_table, capsys, "A1")
    cli_table.key(True)
    cli_table.run(capsys, "set", "wager_cents", "300", "--yes")
    error = cli_table.run(capsys, "config", "A5", "--yes", code=2)
    assert error == ("uthctl: error: not changed: wager_cents 300 is under configuration A5's "
                     "minimum progressive wager of 500 cents (653b.1(c)(4)); change that "
                     "setting first (uthctl set)")
    cli_table.run(capsys, "set", "wager_cents", "null", "--yes")
    assert cli_table.run(capsys, "config", "A5", "--yes", "--json")["changed"] is True
    assert "reset carry, wager_cents null" in cli_table.run(capsys, "status")


def test_a_wager_set_mid_cycle_is_refused_logged_and_not_in_force(cli_table, capsys,
                                                                   tmp_path):
    # The attack measured on main: A1 configured, a round played, the key
    # held, and `set wager_cents 500` took effect at once. A host that skips
    # uthctl's own check sends it straight; the board refuses it and logs it.
    configured(cli_table, capsys, "A1")
    cli_table.play_round((2,))
    cli_table.key(True)
    error = cli_table.run(capsys, "set", "wager_cents", "500", "--yes", code=2)
    assert error == ("uthctl: error: not changed: the meter is not at a reset (cycle 1 has "
                     "played 1 round since its reset, meter $100.02): a setting changes only "
                     "before a cycle's first round, or once its hit is validated")
    with cli_table.target.link(cli_table.port) as link:
        reply = link.command("set", name="wager_cents", value=500)
        head = link.command("meters")["meters"]["log_seq"]
    assert reply["ok"] is False and "refused and logged" in reply["error"], reply
    assert [e["seq"] for e in link.events if e.get("ev") == "setting_refused"] == [head]
    cli_table.key(False)
    log = tmp_path / "log.jsonl"
    cli_table.run(capsys, "log", "export", "--out", str(log))
    records = [json.loads(line) for line in log.read_text().splitlines()]
    refused = [r for r in records if r.get("ev") == "setting_refused"]
    assert [(r["seq"], r["name"], r["value"], r["cycle"], r["round"]) for r in refused] == [
        (head, "wager_cents", 500, 1, 1)]
    assert not [r for r in records if r.get("ev") == "setting"]
    assert cli_table.run(capsys, "status", "--json")["status"]["settings"]["wager_cents"] is None
    cli_table.play_round((2, 5))  # two chips at A1's $1 minimum, 2%: 2 cents each
    meters = cli_table.run(capsys, "meters", "--json")
    assert meters["meter"] == A1_MINIMUM + 3 * 2 * 10_000
