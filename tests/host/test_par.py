# Par sheets checked against figures that do not come from the code under
# test: the published 5- and 7-card category frequencies, Ultimate Pairs
# combinations counted by hand, and paytable odds typed in from the regulation
# (58 Pa. Code 653a.12(c), 653b.2-653b.5), not read from uth.paytables.
import json
import math
from fractions import Fraction

import pytest

from uth import evaluator
from uth.cards import parse_cards
from uth.pairs import pairs_lines
from uthctl.analysis import par

SEVEN_CARD = {
    "royal_flush": 4_324,
    "straight_flush": 37_260,
    "four_of_a_kind": 224_848,
    "full_house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three_of_a_kind": 6_461_620,
    "two_pair": 31_433_400,
    "pair": 58_627_800,
    "high_card": 23_294_460,
}
FIVE_CARD = {
    "royal_flush": 4,
    "straight_flush": 36,
    "four_of_a_kind": 624,
    "full_house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three_of_a_kind": 54_912,
    "two_pair": 123_552,
    "pair": 1_098_240,
    "high_card": 1_302_540,
}
# One-pair five-card hands are spread evenly over the 13 ranks; T, J, Q, K, A win.
PAIR_TENS_OR_BETTER = 1_098_240 * 5 // 13

TRIPS_LINES = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
               "straight", "three_of_a_kind")
TRIPS_ODDS = {  # 653a.12(c) A-D, 653b.2(b) E
    "A": (50, 40, 30, 9, 7, 4, 3),
    "B": (50, 40, 30, 8, 6, 5, 3),
    "C": (50, 40, 30, 8, 7, 4, 3),
    "D": (50, 40, 20, 7, 6, 5, 3),
    "E": (50, 40, 30, 7, 6, 5, 3),
}
BOARD_LINES = TRIPS_LINES + ("two_pair", "pair")
BOARD_ODDS = {  # 653b.4(f)
    "A": (1000, 200, 100, 50, 40, 25, 7, 3, 1),
    "B": (1000, 200, 100, 50, 40, 25, 6, 3, 1),
    "C": (1000, 200, 100, 50, 40, 20, 6, 3, 1),
}
# Ultimate Pairs, counted by hand over the 1,326 two-card hands:
# AA C(4,2) = 6, AhAd 1 of them; AK suited 4; AQ/AJ suited 2 * 4; AK offsuit
# 16 - 4; KK/QQ/JJ 3 * 6; AQ/AJ offsuit 2 * 12; pairs 2 through T 9 * 6.
PAIRS_HANDS = {"aa": 6, "ak_suited": 4, "aq_aj_suited": 8, "ak": 12, "kk_qq_jj": 18,
               "aq_aj": 24, "pair_tens_or_less": 54}
PAIRS_ODDS = {  # 653b.5(f), lines in printed order; N/A lines left out
    "A": {"aa": 30, "ak_suited": 25, "aq_aj_suited": 20, "ak": 15, "kk_qq_jj": 10,
          "aq_aj": 5, "pair_tens_or_less": 3},
    "B": {"aa": 30, "ak_suited": 20, "aq_aj_suited": 20, "ak": 10, "kk_qq_jj": 5,
          "aq_aj": 10, "pair_tens_or_less": 5},
    "C": {"ah_ad": 100, "aa": 30, "ak_suited": 20, "aq_aj_suited": 20, "ak": 10,
          "kk_qq_jj": 4, "aq_aj": 10, "pair_tens_or_less": 4},
    "D": {"ah_ad": 50, "aa": 25, "ak_suited": 20, "aq_aj_suited": 20, "ak": 10,
          "kk_qq_jj": 5, "aq_aj": 10, "pair_tens_or_less": 5},
    "E": {"aa": 25, "ak_suited": 20, "aq_aj_suited": 20, "ak": 10, "kk_qq_jj": 5,
          "aq_aj": 10, "pair_tens_or_less": 5},
    "F": {"aa_and_dealer_aa": 1000, "aa": 30, "ak_suited": 25, "aq_aj_suited": 20, "ak": 15,
          "kk_qq_jj": 10, "aq_aj": 5, "pair_tens_or_less": 3},
}


def _by_line(sheet):
    return {line["line"]: line for line in sheet["lines"]}


def _return_of(counts, odds, total):
    # Per unit wagered: a win gives back the stake plus stake * odds.
    return sum(Fraction(counts[name] * (1 + to), total) for name, to in odds.items())


def test_published_frequencies_add_up():
    assert sum(SEVEN_CARD.values()) == math.comb(52, 7)
    assert sum(FIVE_CARD.values()) == math.comb(52, 5)
    assert PAIR_TENS_OR_BETTER == 422_400


@pytest.mark.parametrize("n, published", [(7, SEVEN_CARD), (5, FIVE_CARD)])
def test_category_counts_match_published(n, published):
    assert par.hand_category_counts(n) == published


@pytest.mark.parametrize("letter", sorted(TRIPS_ODDS))
def test_trips_exact(letter):
    sheet = par.par_sheet("trips", letter)
    odds = dict(zip(TRIPS_LINES, TRIPS_ODDS[letter], strict=True))
    expected = _return_of(SEVEN_CARD, odds, math.comb(52, 7))
    assert sheet["method"] == "exact"
    assert sheet["total"] == math.comb(52, 7)
    assert Fraction(sheet["return"]) == expected
    assert Fraction(sheet["house_edge"]) == 1 - expected
    assert sheet["house_edge_percent"] == pytest.approx(float((1 - expected) * 100))
    lines = _by_line(sheet)
    assert list(lines) == list(TRIPS_LINES)
    for name in TRIPS_LINES:
        assert lines[name]["combinations"] == SEVEN_CARD[name]
    losing = SEVEN_CARD["two_pair"] + SEVEN_CARD["pair"] + SEVEN_CARD["high_card"]
    assert sheet["losing"]["combinations"] == losing


@pytest.mark.parametrize("letter", sorted(BOARD_ODDS))
def test_play_the_board_exact(letter):
    sheet = par.par_sheet("play_the_board", letter)
    counts = dict(FIVE_CARD, pair=PAIR_TENS_OR_BETTER)
    odds = dict(zip(BOARD_LINES, BOARD_ODDS[letter], strict=True))
    expected = _return_of(counts, odds, math.comb(52, 5))
    assert sheet["total"] == math.comb(52, 5)
    assert Fraction(sheet["return"]) == expected
    assert Fraction(sheet["house_edge"]) == 1 - expected
    lines = _by_line(sheet)
    assert lines["pair"]["combinations"] == 422_400
    assert lines["two_pair"]["combinations"] == 123_552
    # Losers: high card and the pairs of deuces through nines.
    assert sheet["losing"]["combinations"] == 1_302_540 + 1_098_240 * 8 // 13


@pytest.mark.parametrize("letter", "ABCDE")
def test_ultimate_pairs_player_cards_only(letter):
    sheet = par.par_sheet("ultimate_pairs", letter)
    counts = dict(PAIRS_HANDS)
    if "ah_ad" in PAIRS_ODDS[letter]:
        counts["ah_ad"], counts["aa"] = 1, 5
    assert sheet["total"] == 1326
    assert {k: v["combinations"] for k, v in _by_line(sheet).items()} == counts
    expected = _return_of(counts, PAIRS_ODDS[letter], 1326)
    assert Fraction(sheet["return"]) == expected
    assert sheet["losing"]["combinations"] == 1326 - 126


def test_ultimate_pairs_f_uses_dealer_aces():
    sheet = par.par_sheet("ultimate_pairs", "F")
    lines = _by_line(sheet)
    both = Fraction(6, 1326) * Fraction(1, 1225)
    assert Fraction(lines["aa_and_dealer_aa"]["combinations"], sheet["total"]) == both
    assert lines["aa_and_dealer_aa"]["probability"] == pytest.approx(float(both), rel=1e-12)
    only_player = Fraction(6, 1326) * Fraction(1224, 1225)
    assert Fraction(lines["aa"]["combinations"], sheet["total"]) == only_player
    probabilities = {name: Fraction(n, 1326) for name, n in PAIRS_HANDS.items()}
    probabilities["aa"] = only_player
    probabilities["aa_and_dealer_aa"] = both
    expected = sum(p * (1 + PAIRS_ODDS["F"][name]) for name, p in probabilities.items())
    assert Fraction(sheet["return"]) == expected


@pytest.mark.parametrize("cards, lines", [
    ("Ah Ad", ("ah_ad", "aa")),
    ("As Ac", ("aa",)),
    ("Ks Kh", ("kk_qq_jj",)),
    ("Jd Jc", ("kk_qq_jj",)),
    ("Td Tc", ("pair_tens_or_less",)),
    ("2d 2c", ("pair_tens_or_less",)),
    ("Ah Kh", ("ak_suited", "ak")),
    ("Kd As", ("ak",)),
    ("Js As", ("aq_aj_suited", "aq_aj")),
    ("Ac Qd", ("aq_aj",)),
    ("Ac Td", ()),
    ("Kc Qc", ()),
])
def test_ultimate_pairs_hand_lines(cards, lines):
    assert tuple(pairs_lines(parse_cards(cards))) == lines


def _scores(player, dealer, board):
    board = parse_cards(board)
    return (evaluator.score(bytes(parse_cards(player) + board), 7),
            evaluator.score(bytes(parse_cards(dealer) + board), 7))


@pytest.mark.parametrize("player, dealer, board, two_way, player_loses", [
    # Dealer's full house beats the player's two pair: a losing two pair pays nothing.
    ("As Ah", "Kc 7d", "Ks Kd 7c 7h 2s", None, None),
    # Player's royal beats the dealer's straight: two-way pays the straight.
    ("Jh Th", "Jc Tc", "Ah Kh Qh 2c 2d", "straight", None),
    # Dealer's full house loses to the player's quads; and the other way round.
    ("9c 3s", "Ks Kh", "9s 9h 9d 4c 2h", "full_house", None),
    ("Ks Kh", "9c 3s", "9s 9h 9d 4c 2h", "full_house", "full_house"),
    # Trips lose to better trips (kickers): both modes pay three of a kind.
    ("3c 4d", "Ac Kd", "5c 5d 5h Jc 2d", "three_of_a_kind", "three_of_a_kind"),
    # A tie never pays, whatever its category.
    ("2c 3d", "4c 6d", "Ts Js Qs Ks As", None, None),
])
def test_bad_beat_line(player, dealer, board, two_way, player_loses):
    p, d = _scores(player, dealer, board)
    assert par.bad_beat_line(p, d, "two_way") == two_way
    assert par.bad_beat_line(p, d, "player_loses") == player_loses


def test_bad_beat_same_seed_same_sheet():
    first = par.par_sheet("bad_beat", "C", deals=3000, seed=7)
    again = par.par_sheet("bad_beat", "C", deals=3000, seed=7)
    other = par.par_sheet("bad_beat", "C", deals=3000, seed=8)
    assert first == again
    assert first["lines"] != other["lines"]
    assert first["method"] == "monte_carlo"
    assert (first["deals"], first["seed"], first["total"]) == (3000, 7, 3000)


def test_bad_beat_without_seed_records_one():
    sheet = par.par_sheet("bad_beat", "C", deals=500)
    again = par.par_sheet("bad_beat", "C", deals=500, seed=sheet["seed"])
    assert sheet["lines"] == again["lines"]


def test_bad_beat_sheet_is_consistent():
    sheet = par.par_sheet("bad_beat", "C", deals=20_000, seed=3)
    hits = sum(line["combinations"] for line in sheet["lines"])
    assert hits + sheet["losing"]["combinations"] == 20_000
    assert sum(line["probability"] for line in sheet["lines"]) <= 1
    assert sum(line["return_share"] for line in sheet["lines"]) == pytest.approx(
        sheet["return_percent"] / 100)
    assert Fraction(sheet["return"]) + Fraction(sheet["house_edge"]) == 1
    assert sheet["standard_error_percent"] > 0


def test_bad_beat_two_way_is_twice_player_loses():
    # Player and dealer are dealt alike, so each side strictly loses with a
    # given category equally often: two-way hits every line twice as often as
    # player_loses, and so returns twice as much. Independent seeds.
    two_way = par.par_sheet("bad_beat", "C", deals=20_000, seed=11)
    one_way = par.par_sheet("bad_beat", "C", deals=20_000, seed=12,
                            bad_beat_mode="player_loses")
    gap = two_way["return_percent"] - 2 * one_way["return_percent"]
    spread = math.hypot(two_way["standard_error_percent"], 2 * one_way["standard_error_percent"])
    assert abs(gap) < 5 * spread
    p2 = _by_line(two_way)["three_of_a_kind"]["probability"]
    p1 = _by_line(one_way)["three_of_a_kind"]["probability"]
    binomial = math.sqrt(p2 * (1 - p2) / 20_000 + 4 * p1 * (1 - p1) / 20_000)
    assert abs(p2 - 2 * p1) < 5 * binomial


def test_progress_reported():
    calls = []
    par.par_sheet("bad_beat", "C", deals=25_000, seed=1,
                  progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (25_000, 25_000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert all(t == 25_000 for _, t in calls)
    exact = []
    par.par_sheet("trips", "A", progress=lambda d, t: exact.append((d, t)))
    assert exact and exact[-1][0] == exact[-1][1]


@pytest.mark.parametrize("wager, letter", [
    ("trips", "Z"), ("poker", "A"), ("bad_beat", "A"), ("ultimate_pairs", "G"),
    ("blind", "A"),
])
def test_bad_input_refused(wager, letter):
    with pytest.raises(ValueError):
        par.par_sheet(wager, letter)


@pytest.mark.parametrize("kwargs", [{"deals": 0}, {"deals": 1}, {"deals": -5}, {"deals": 1.5},
                                    {"bad_beat_mode": "one_way"}])
def test_bad_monte_carlo_settings_refused(kwargs):
    with pytest.raises(ValueError):
        par.par_sheet("bad_beat", "C", seed=1, **kwargs)


def test_sheet_is_json_ready_and_formats():
    for wager, letter in (("trips", "E"), ("ultimate_pairs", "F")):
        sheet = par.par_sheet(wager, letter)
        assert json.loads(json.dumps(sheet)) == sheet
        text = par.format_sheet(sheet)
        assert sheet["section"] in text
        for line in sheet["lines"]:
            assert line["line"] in text
        assert "%.6f%%" % sheet["house_edge_percent"] in text
    sheet = par.par_sheet("bad_beat", "C", deals=1000, seed=2)
    assert json.loads(json.dumps(sheet)) == sheet
    assert "seed 2" in par.format_sheet(sheet)
