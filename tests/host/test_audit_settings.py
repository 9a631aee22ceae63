# uthctl audit on a log with the table's settings in it: the settings in
# force, each hit's validation (employee and jackpot slip, 653b.1(c)(5)(ii))
# and the amount retained under reset minimum are in the report, the identity
# is checked as seeded + contributed = paid + meter + retained, and a retained
# record that does not match the meter the log leaves after the payment is
# caught. The log is the firmware's own store's, played in memory.
from test_audit_checks import audit_of, relinked, with_head

from mystery.bonus import MysteryBonus
from mystery.store import Store
from uthctl.analysis import audit_report

SEATS = [(1, True, 10_000), (2, True, 10_000), (4, True, 10_000)]  # $100 chips


def _highest(n):
    # The bytes that draw A1's highest hit value, $199.99.
    return (b"\x27\x0f" * 9)[:n]


def _played(root):
    # A1 ($100-$200, 2%): $2 a chip. The 50th chip (round 17, seat 2) takes
    # the meter to $200 > $199.99 and wins $200; seat 4's $2 is retained.
    # The validation gives an employee and a slip.
    bonus = MysteryBonus(Store(str(root)), _highest)
    bonus.boot()
    bonus.configure("A1")
    bonus.reset()
    bonus.change_setting("reset", "minimum")
    bonus.change_setting("wager_cents", 10_000)
    while bonus.meter.phase != "pending":
        bonus.lock_round(SEATS)
    bonus.validate("jackpot_slip", "4417", "JS-00912")
    bonus.reset()
    bonus.lock_round(SEATS)
    return list(bonus.log_since(0)), bonus.meters()


def test_the_report_shows_settings_validation_and_retained(tmp_path):
    records, meters = _played(tmp_path)
    result = audit_of(records, meters)
    assert result["ok"], result["failures"]
    rounds = [r for r in records if r["ev"] == "round"]
    hit = [r for r in records if r["ev"] == "hit"][0]
    hit_round = [r for r in rounds if r["round"] == hit["round"]][0]
    overshoot = hit_round["meter"] - hit["award"]  # the round's meter, less the award
    assert meters["retained"] == overshoot == 2_000_000
    assert result["accounts"]["recomputed"]["retained"] == overshoot
    text = audit_report.text(result)
    assert "validated by employee 4417, jackpot slip JS-00912" in text
    assert "$2.00 retained at the reset to the minimum" in text
    settings_block = text.split("Settings\n")[1].split("\n\n")[0]
    lines = {line.split()[0]: line for line in settings_block.splitlines()}
    assert lines["reset"].startswith('  reset            "minimum" after a hit')
    assert lines["wager_cents"].startswith("  wager_cents      10000     each progressive")
    assert "+ retained" in text and ": holds" in text


def test_a_retained_amount_that_does_not_match_the_meter_is_caught(tmp_path):
    records, meters = _played(tmp_path)
    at = [n for n, r in enumerate(records) if r["ev"] == "retained"][0]
    forged = [dict(r) for r in records]
    forged[at]["amount"] += 10_000  # a cent more retained than the meter held
    forged = relinked(forged)
    meters = dict(with_head(meters, forged), retained=meters["retained"] + 10_000,
                  meter=meters["meter"] - 10_000)
    result = audit_of(forged, meters)
    assert not result["ok"]
    assert any(f.startswith("accounts: record %d: retains" % forged[at]["seq"])
               for f in result["failures"]), result["failures"]


def test_a_key_turn_without_a_validation_is_reported_as_such(tmp_path):
    bonus = MysteryBonus(Store(str(tmp_path)), _highest)
    bonus.boot()
    bonus.configure("A1")
    bonus.reset()
    while bonus.meter.phase != "pending":
        bonus.lock_round(SEATS)
    bonus.validate("table_inventory")
    result = audit_of(list(bonus.log_since(0)), bonus.meters())
    assert result["ok"], result["failures"]
    assert "validated with no employee or slip recorded" in audit_report.text(result)
