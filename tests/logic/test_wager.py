# The table's fixed progressive wager (setting wager_cents, 653b.1(c)(2)):
# every qualifying chip counts as that amount, and its contribution is the
# amount times the configuration's rate. Expected figures come from the
# rates as 653b.1(c)(4) prints them (regulation.py), not from the firmware.
import os

import tmpdir
from regulation import contribution, minimum, minimum_wager_cents
from table_rig import Rig
from test_settings import in_service

SEATS = (1, 3, 6)


def _lock(rig, seats=SEATS):
    for seat in seats:
        rig.chip(seat)
    rig.press_lock()
    for seat in seats:
        rig.chip(seat, False)
    rig.run(300)


def _contributions(rig):
    return [(e["seat"], e["wager"], e["amount"]) for e in rig.events("contribution")]


@tmpdir.within
def test_with_no_wager_set_each_chip_counts_as_the_configurations_minimum(root):
    rig = Rig(root)
    rig.configure("A2")
    _lock(rig)
    each = contribution("A2", minimum_wager_cents("A2"))  # 1.5% of $2: 3 cents
    assert _contributions(rig) == [(seat, 200, each) for seat in SEATS]
    assert rig.table.bonus.meters()["meter"] == minimum("A2") + 3 * each


@tmpdir.within
def test_each_chip_contributes_the_fixed_wager_times_the_rate(root):
    for name, cents in (("A2", 700), ("B2", 300), ("C5", 2500), ("D1", 125)):
        folder = root + "/" + name
        os.mkdir(folder)
        rig = Rig(folder)
        rig.configure(name)
        assert in_service(rig, cmd="set", name="wager_cents", value=cents)["ok"] is True
        _lock(rig)
        each = contribution(name, cents)
        assert _contributions(rig) == [(seat, cents, each) for seat in SEATS], name
        assert rig.table.bonus.meters()["meter"] == minimum(name) + 3 * each, name
        assert rig.command(cmd="status")[-1]["settings"]["wager_cents"] == cents


@tmpdir.within
def test_a_configuration_with_a_higher_minimum_is_refused_until_the_wager_fits(root):
    rig = Rig(root)
    rig.configure("A1")
    assert in_service(rig, cmd="set", name="wager_cents", value=300)["ok"] is True
    head = rig.table.bonus.store.head_seq
    reply = rig.configure("A5")  # $5 minimum: a $3 wager does not qualify
    assert reply == {"ok": False, "error": "configuration A5 refused: wager_cents 300 is under "
                     "configuration A5's minimum progressive wager of 500 cents "
                     "(653b.1(c)(4)); change that setting first"}
    # Nothing logged but service mode entered and left.
    assert [r["ev"] for r in rig.table.bonus.log_since(head + 1)] == ["service", "service"]
    assert rig.table.bonus.meters()["config"] == "A1"
    assert rig.configure("A2")["ok"] is True  # $2 minimum: $3 fits, and stays
    assert in_service(rig, cmd="set", name="wager_cents", value=None)["ok"] is True
    assert rig.configure("A5")["ok"] is True  # back to the configuration's minimum
    _lock(rig)
    each = contribution("A5", minimum_wager_cents("A5"))  # 1% of $5: 5 cents
    assert _contributions(rig) == [(seat, 500, each) for seat in SEATS]
