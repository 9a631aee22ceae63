# The audit's hold against par: figures worked by hand. A made-up sheet with
# one paying line of 1 to 1 on 1 combination in 4 (3 lose): the mean net of a
# unit wager is 1/4 - 3/4 = -1/2 (house edge 1/2), its second moment
# 1/4 + 3/4 = 1, its variance 1 - 1/4 = 3/4. Over 300 wagers the standard
# deviation of the hold is sqrt(3/4 / 300) = 1/20, so the 95% interval is
# 1/2 +/- 1.959964/20: [0.4020018, 0.5979982].
from fractions import Fraction

import pytest

from uthctl.analysis import hold, par

SHEET = {"total": 4, "house_edge": "1/2",
         "lines": [{"line": "pair", "to": 1, "per": 1, "combinations": 1}],
         "losing": {"combinations": 3}}


def _meters(paid, wagers=300, wagered=30000, limited=0):
    return {"side_wagers": {"settled": 100, "wagers": {"trips/E": {
        "rounds": 100, "wagers": wagers, "wagered": wagered, "paid": paid,
        "limited": limited, "lines": {}}}}}


def test_the_variance_of_a_unit_wager_by_hand():
    assert hold.net_variance(SHEET) == Fraction(3, 4)


def test_a_hold_inside_the_interval():
    (found,) = hold.holds(_meters(paid=15000), lambda wager, letter: SHEET)
    assert found["hold"] == 0.5 and found["house_edge"] == 0.5
    assert found["low"] == pytest.approx(0.5 - 1.959964 / 20, abs=1e-6)
    assert found["high"] == pytest.approx(0.5 + 1.959964 / 20, abs=1e-6)
    assert not found["outside"] and hold.outside([found]) == []


def test_a_hold_outside_the_interval_is_flagged():
    # Paid 18,000 of 30,000: a hold of 0.4, under 0.4020018.
    (found,) = hold.holds(_meters(paid=18000), lambda wager, letter: SHEET)
    assert found["hold"] == pytest.approx(0.4) and found["outside"]
    (flag,) = hold.outside([found])
    assert "trips/E holds 40.0000%" in flag and "[40.2002%, 59.7998%]" in flag
    line = hold.hold_lines([found])[0]
    assert line.endswith("OUTSIDE"), line


def test_limited_wins_are_said():
    (found,) = hold.holds(_meters(paid=15000, limited=2), lambda wager, letter: SHEET)
    assert "2 wins cut by the payout limit" in hold.hold_lines([found])[0]


def test_the_real_trips_sheet_variance():
    # Trips E by hand from its printed odds and the exact 7-card category
    # counts of 133,784,560 hands (royal 4,324; straight flush 37,260; quads
    # 224,848; full house 3,473,184; flush 4,047,644; straight 6,180,020;
    # trips 6,461,620): E pays 50, 40, 30, 7, 6, 5, 3 to 1.
    counts = (4324, 37260, 224848, 3473184, 4047644, 6180020, 6461620)
    odds = (50, 40, 30, 7, 6, 5, 3)
    total = 133784560
    lose = total - sum(counts)
    mean = Fraction(sum(c * o for c, o in zip(counts, odds, strict=True)) - lose, total)
    second = Fraction(sum(c * o * o for c, o in zip(counts, odds, strict=True)) + lose, total)
    sheet = par.par_sheet("trips", "E")
    assert Fraction(sheet["house_edge"]) == -mean
    assert hold.net_variance(sheet) == second - mean * mean


def test_meters_against_the_log():
    record = {"ev": "settled", "paytables": ["E", None, None, None],
              "seats": [[1, "AsKs", False, [500, 0, 0, 0], [1500, 0, 0, 0]],
                        [2, "2c3d", False, [200, 0, 0, 0], [-200, 0, 0, 0]]]}
    # Wagered 700; paid 500 + 1,500 for the win, nothing for the loss.
    meters = {"side_wagers": {"wagers": {"trips/E": {"wagers": 2, "wagered": 700,
                                                     "paid": 2000}}}}
    assert hold.meters_against_log(meters, [record]) == []
    meters["side_wagers"]["wagers"]["trips/E"]["paid"] = 2100
    (problem,) = hold.meters_against_log(meters, [record])
    assert "trips/E meters say 2 wagers, 700 wagered, 2100 paid" in problem
