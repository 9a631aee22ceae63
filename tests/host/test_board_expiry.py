# What a running board claims about the temporary section its rules rest on,
# through the host link and uthctl: 653b.1, effective 2021-09-04, expiring
# 2024-09-04 (the source note; the expiry day is the first out of force). It
# judges by its clock only when that clock reads a day on or after 2021-09-04:
# the virtual board's clock is the host's, the emulated Pico's starts at
# 2021-01-01 at each power-on (never set), which the board must say.
import datetime

import pytest
from cli_board import configured

A1_ROW = ["653b.1", "2021-09-04", "2024-09-04"]

pytestmark = pytest.mark.usefixtures("micropython")


def _board_days(target, rig):
    # The days the board's clock can read now, from the target's own account
    # of that clock (tests/host/targets.py), not from the firmware.
    early, late = target.clock_window(rig)
    return {datetime.datetime.fromtimestamp(t, datetime.timezone.utc).date().isoformat()
            for t in (early, late)}


def _expected(day):
    # (clock, expired) for a board whose clock reads day.
    if day < "2021-09-04":
        return "unset", None
    return "set", (["653b.1"] if day >= "2024-09-04" else [])


@pytest.mark.pico_quick
def test_the_board_reports_653b1_and_judges_only_by_a_set_clock(cli_table, capsys, target):
    changed = configured(cli_table, capsys)
    rules = changed["rules"]
    assert rules["sections"] == [A1_ROW]
    assert rules["date"] in _board_days(target, cli_table.rig)
    clock, expired = _expected(rules["date"])
    assert (rules["clock"], rules["expired"]) == (clock, expired)
    if clock == "unset":
        assert "never set" in rules["warning"] and "2024-09-04" in rules["warning"]
    else:
        assert ("653b.1 expired 2024-09-04" in (rules["warning"] or "")) == bool(expired)
    status = cli_table.run(capsys, "status", "--json")["status"]
    assert status["rules"]["sections"] == [A1_ROW] and status["rules"]["clock"] == clock
    text = cli_table.run(capsys, "status")
    said = "its clock reads %s, never set" % rules["date"] if clock == "unset" else \
        "by its clock (%s)" % rules["date"]
    assert "board says     " + said in text


def test_every_boot_warns_while_the_section_has_expired(cli_table, capsys, target):
    configured(cli_table, capsys)
    with target.link(cli_table.port) as link:
        cli_table.rig.reset()
        link.wait_event("started", target.wait(20.0))
        warned = [e for e in link.events if e.get("ev") == "expiry_warning"]
    day = next(iter(_board_days(target, cli_table.rig)))
    clock, expired = _expected(day)
    assert len(warned) == 1 and warned[0]["clock"] == clock
    assert warned[0]["expired"] == expired
