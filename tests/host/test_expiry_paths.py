# The host tools warn of temporary 653b sections past their dates on every
# path, by the host's date (UTH_TODAY names another day), and never refuse.
# Dates from the reference text's source notes: 653b.1 expires 2024-09-04,
# 653b.2-653b.5 expire 2026-03-23; the expiry day is the first out of force.
import json
import pathlib

import pytest

from uthctl.analysis import audit_report, expiry
from uthctl.analysis.table_audit import audit
from uthctl.cli import main
from uthctl.commands.monitor_text import event_line
from uthctl.commands.status import format_status
from uthctl.tui.events import describe, event_style
from uthctl.tui.panels import expired_words

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "round.json"
PAYTABLE_SECTIONS = ["653b.2", "653b.3", "653b.4", "653b.5"]  # the example's four wagers
METERS = {"meter": 100_000_000, "contributed": 0, "seeded": 100_000_000, "paid": 0, "hits": 0,
          "cycle": 1, "round": 0, "config": "A1", "phase": "running", "display_cents": 10000,
          "pending": None, "last_hits": [], "exposed": False}
STATUS = {"state": "betting", "fault": None, "payment": "table_inventory", "locked_in": [],
          "stale_chips": []}


def _on(monkeypatch, day):
    monkeypatch.setenv(expiry.DATE_ENV, day)


def test_the_host_date_is_today_or_the_one_given(monkeypatch):
    monkeypatch.delenv(expiry.DATE_ENV, raising=False)
    assert len(expiry.host_date()) == 10
    _on(monkeypatch, "2024-09-03")
    assert expiry.host_date() == "2024-09-03"
    _on(monkeypatch, "3 Sept")
    with pytest.raises(ValueError, match="UTH_TODAY: a date is YYYY-MM-DD"):
        expiry.host_date()


@pytest.mark.parametrize("day, expired", [("2026-03-22", []), ("2026-03-23", PAYTABLE_SECTIONS),
                                          ("2026-11-30", PAYTABLE_SECTIONS)])
def test_settle_json_says_which_paytables_expired(monkeypatch, capsys, day, expired):
    _on(monkeypatch, day)
    assert main(["settle", str(EXAMPLE), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["expiry"]["expired"] == expired and out["expiry"]["date"] == day
    assert [row[0] for row in out["expiry"]["sections"]] == PAYTABLE_SECTIONS
    assert out["seats"][0]["seat"] == 1  # settled all the same


def test_settle_text_warns_first_and_settles(monkeypatch, capsys):
    _on(monkeypatch, "2026-03-23")
    assert main(["settle", str(EXAMPLE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    warning = " ".join(line.strip() for line in lines[:lines.index("seat 1")])
    assert warning.startswith("WARNING") and "653b.5 expired 2026-03-23" in warning
    _on(monkeypatch, "2026-03-22")
    assert main(["settle", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "seat 1"


@pytest.mark.parametrize("day, warned", [("2024-09-03", False), ("2024-09-04", True),
                                         ("2025-01-01", True)])
def test_status_warns_by_the_hosts_date(monkeypatch, day, warned):
    _on(monkeypatch, day)
    text = format_status(STATUS, METERS)
    assert ("WARNING: 58 Pa. Code 653b.1 expired 2024-09-04" in text) is warned
    assert ("expires 2024-09-04  EXPIRED" in text) is warned


def test_status_gives_the_boards_own_claim(monkeypatch):
    _on(monkeypatch, "2024-09-03")
    rules = {"date": "2021-01-01", "clock": "unset", "expired": None,
             "sections": [["653b.1", "2021-09-04", "2024-09-04"]], "warning": "…"}
    text = format_status(dict(STATUS, rules=rules), METERS)
    assert "board says     its clock reads 2021-01-01, never set" in text
    rules = dict(rules, date="2026-11-30", clock="set", expired=["653b.1"])
    text = format_status(dict(STATUS, rules=rules), METERS)
    assert "board says     by its clock (2026-11-30): 653b.1 expired" in text
    assert "board says" not in format_status(STATUS, METERS)  # firmware that does not say


def _audit(monkeypatch, day, rules=None):
    _on(monkeypatch, day)
    status = {"ok": True, "state": "betting", "payment": "table_inventory", "fault": None}
    if rules is not None:
        status["rules"] = rules
    meters = dict(METERS, log_seq=0, log_hash="0" * 64, log_dropped=0)
    return audit(status, meters, [], [], "test")


def test_the_audit_report_warns_and_does_not_fail_for_it(monkeypatch):
    result = _audit(monkeypatch, "2024-09-04")
    assert result["expiry"]["host"]["expired"] == ["653b.1"]
    heading = audit_report.text(result).split("\n\n")[0]
    assert "WARNING        58 Pa. Code 653b.1 expired 2024-09-04 (as of 2024-09-04)" in heading
    result = _audit(monkeypatch, "2024-09-03")
    assert result["expiry"]["host"]["expired"] == []
    assert "WARNING" not in audit_report.text(result)
    assert result["rule_tables"]["today"] == "2024-09-03"


def test_the_audit_report_gives_the_boards_claim(monkeypatch):
    rules = {"date": "2026-11-30", "clock": "set", "expired": ["653b.1"], "warning": "…",
             "sections": [["653b.1", "2021-09-04", "2024-09-04"]]}
    result = _audit(monkeypatch, "2026-11-30", rules)
    assert result["expiry"]["board"] == rules
    assert "board says     by its clock (2026-11-30): 653b.1 expired" in audit_report.text(result)


def test_the_tui_header_and_events(monkeypatch):
    _on(monkeypatch, "2024-09-03")
    assert expired_words("A1") == ""
    _on(monkeypatch, "2024-09-04")
    assert expired_words("D5") == "  653b.1 EXPIRED 2024-09-04"
    assert expired_words(None) == ""
    event = {"ev": "expiry_warning", "reason": "58 Pa. Code 653b.1 expired 2024-09-04 (…)"}
    assert describe(event) == "EXPIRY: 58 Pa. Code 653b.1 expired 2024-09-04 (…)"
    assert event_style(event) == "warn"
    assert event_line(event) == "EXPIRY warning: 58 Pa. Code 653b.1 expired 2024-09-04 (…)"


@pytest.mark.parametrize("day, lapsed", [("2024-09-03", set()), ("2024-09-04", {"653b.1"}),
                                         ("2026-03-23", {"653b.1", "653b.2", "653b.3",
                                                         "653b.4", "653b.5"})])
def test_paytables_and_configs_mark_what_has_expired(monkeypatch, capsys, day, lapsed):
    _on(monkeypatch, day)
    assert main(["paytables", "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    marked = {t["section"].split("(")[0] for t in tables if t["expired"]}
    assert marked == lapsed - {"653b.1"}  # 653b.1 carries no paytable
    assert main(["mystery", "configs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["expired"] is ("653b.1" in lapsed)
