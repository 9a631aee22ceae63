# A table whose rules rest on an expired temporary section warns at boot, on
# configuration and in status, and plays on. 653b.1's source note: effective
# 2021-09-04, expire 2024-09-04 (the expiry day is the first out of force).
# A board clock before 2021-09-04 was never set: the board says so and claims
# nothing (an RP2040 with no RTC set starts at 2021-01-01).
import tmpdir
from table import expiry
from table_rig import Rig

A1_ROW = ["653b.1", "2021-09-04", "2024-09-04"]


def _configured(root, today):
    rig = Rig(root, today=today)
    reply = rig.configure("A1")
    assert reply["ok"] is True and reply["mystery"] == "A1"
    return rig, reply


def _status(rig):
    return rig.command(cmd="status")[-1]


@tmpdir.within
def test_the_day_before_expiry_nothing_is_warned(root):
    rig, reply = _configured(root, "2024-09-03")
    assert reply["rules"] == {"date": "2024-09-03", "clock": "set", "sections": [A1_ROW],
                              "expired": [], "warning": None}
    assert rig.events("expiry_warning") == []
    assert _status(rig)["rules"]["expired"] == []
    assert Rig(root, today="2024-09-03").events("expiry_warning") == []  # nor at boot


@tmpdir.within
def test_on_the_expiry_day_configuring_warns_and_changes_nothing_else(root):
    rig, reply = _configured(root, "2024-09-04")
    warned = rig.events("expiry_warning")
    assert len(warned) == 1 and warned[0]["expired"] == ["653b.1"]
    assert warned[0]["clock"] == "set" and warned[0]["date"] == "2024-09-04"
    assert "653b.1 expired 2024-09-04" in warned[0]["reason"]
    assert "board's clock" in warned[0]["reason"]
    assert reply["rules"]["expired"] == ["653b.1"]
    assert reply["rules"]["warning"] == warned[0]["reason"]
    # Not refused: the round locks and contributes as on any day.
    rig.chip(1)
    rig.press_lock()
    assert [e["seat"] for e in rig.events("contribution")] == [1]


@tmpdir.within
def test_after_expiry_every_boot_warns_and_status_says_so(root):
    _configured(root, "2024-09-05")
    rebooted = Rig(root, today="2026-11-30")
    warned = rebooted.events("expiry_warning")
    assert len(warned) == 1 and warned[0]["expired"] == ["653b.1"]
    events = [e["ev"] for e in rebooted.events()]
    assert events == ["expiry_warning"]
    status = _status(rebooted)
    assert status["rules"]["sections"] == [A1_ROW]
    assert status["rules"]["expired"] == ["653b.1"] and status["rules"]["date"] == "2026-11-30"
    assert status["state"] == "betting"


@tmpdir.within
def test_a_clock_never_set_claims_nothing_and_says_why(root):
    rig, reply = _configured(root, "2021-01-01")
    rules = reply["rules"]
    assert (rules["clock"], rules["expired"]) == ("unset", None)
    assert "never set" in rules["warning"] and "653b.1 expires 2024-09-04" in rules["warning"]
    warned = Rig(root, today="2021-01-01").events("expiry_warning")
    assert len(warned) == 1 and warned[0]["clock"] == "unset" and warned[0]["expired"] is None


@tmpdir.within
def test_an_unconfigured_table_rests_on_no_section(root):
    rig = Rig(root, today="2026-11-30")
    assert rig.events("expiry_warning") == []
    assert _status(rig)["rules"] == {"date": "2026-11-30", "clock": "set", "sections": [],
                                     "expired": [], "warning": None}


def test_the_report_names_each_section_once():
    rules = expiry.report(["653b.1(c)(4)", "653b.1"], "2026-11-30")
    assert rules["sections"] == [A1_ROW] and rules["expired"] == ["653b.1"]
    rules = expiry.report(["653b.2(b)", "653b.5(f)"], "2026-03-22")
    assert rules["expired"] == [] and rules["warning"] is None
    assert [row[2] for row in rules["sections"]] == ["2026-03-23", "2026-03-23"]


def test_the_board_date_from_its_clock():
    assert expiry.board_date(lambda: (2021, 1, 1, 0, 0, 0, 4, 1)) == "2021-01-01"

    def broken():
        raise OSError("no RTC")

    assert expiry.board_date(broken) is None
    assert expiry.clock_state(None) == "none"
