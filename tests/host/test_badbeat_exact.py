# The exact Bad Beat count checked against figures that do not come from it:
# uth.evaluator.score hand by hand, a brute force over every ordered
# (player, dealer) pair on single boards, the Monte Carlo of analysis/par.py, suit
# orbits enumerated by hand, and a third party's published exact count.
import json
import math
import random
from collections import Counter
from fractions import Fraction
from itertools import combinations, permutations

import numpy as np
import pytest

from uth import evaluator, paytables
from uth.cards import parse_cards
from uthctl.analysis import badbeat_exact, par
from uthctl.cli import main as uthctl

CATEGORY_SHIFT = 26
NAMES = ("high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house",
         "four_of_a_kind", "straight_flush", "royal_flush")
PAYING = ("straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
          "three_of_a_kind")
# 58 Pa. Code 653b.3(b), paytable C, typed in from the regulation.
ODDS_C = {"straight_flush": 2500, "four_of_a_kind": 500, "full_house": 50, "flush": 30,
          "straight": 20, "three_of_a_kind": 9}
# Every ordered deal: 9 distinct cards, the board's 5 and each hole pair's 2 unordered.
ALL_DEALS = math.perm(52, 9) // (math.factorial(5) * 2 * 2)
# Two-way Bad Beat of UTH counted exactly by Stephen How, "Bad Beat Bonus @
# Ultimate Texas Hold'Em", discountgambling.net, 8 June 2012: ordered deals
# by the losing hand's category, and the pushes, out of 2,781,381,002,400.
PUBLISHED_TWO_WAY = {
    "royal_flush": 0,
    "straight_flush": 10_300_592,
    "four_of_a_kind": 471_040_512,
    "full_house": 8_435_225_376,
    "flush": 19_434_208_592,
    "straight": 18_271_076_976,
    "three_of_a_kind": 64_049_759_448,
    "two_pair": 399_099_149_640,
    "pair": 1_366_512_556_968,
    "high_card": 791_967_420_480,
}
PUBLISHED_PUSHES = 113_130_263_816
PUBLISHED_TOTAL = 2_781_381_002_400


# ---- the vectorized scorer ----

def _scored(hands):
    # Scores of 7-card hands by badbeat_exact's scorer (board = first five).
    hands = np.asarray(hands, dtype=np.int64)
    out = np.empty(len(hands), dtype=np.int64)
    for start in range(0, len(hands), 1000):
        part = hands[start:start + 1000]
        lo = np.minimum(part[:, 5], part[:, 6])
        hi = np.maximum(part[:, 5], part[:, 6])
        # Pairs {a < b} in lexicographic order, as PAIRS lists them.
        column = lo * 51 - lo * (lo - 1) // 2 + hi - lo - 1
        scores = badbeat_exact.score_holes(part[:, :5])
        out[start:start + 1000] = scores[np.arange(len(part)), column]
    return out


def _random_hands(rng, count, deck):
    return [rng.sample(deck, 7) for _ in range(count)]


def test_pair_order_is_lexicographic():
    assert badbeat_exact.PAIRS.tolist() == [list(p) for p in combinations(range(52), 2)]


@pytest.mark.parametrize("deck", [
    list(range(52)),
    [c for c in range(52) if c & 3 < 2],       # two suits: flushes, straight flushes
    [c for c in range(52) if c >> 2 in (0, 1, 2, 3, 12, 8, 9)],  # few ranks: quads, wheels
    [c for c in range(52) if c & 3 == 0 or c >> 2 >= 8],  # one suit and the broadway ranks
], ids=["full", "two_suits", "few_ranks", "broadway"])
def test_scorer_orders_like_the_evaluator(deck):
    rng = random.Random(len(deck))
    hands = _random_hands(rng, 12_000, deck)
    mine = _scored(hands)
    theirs = np.array([evaluator.score(bytes(h), 7) for h in hands], dtype=np.int64)
    # Same category, and the same order over all the hands: equal dense ranks.
    assert ((mine >> CATEGORY_SHIFT) == (theirs >> CATEGORY_SHIFT)).all()
    assert (np.unique(mine, return_inverse=True)[1]
            == np.unique(theirs, return_inverse=True)[1]).all()
    # And hand against hand, in a shuffled order.
    order = rng.sample(range(len(hands)), len(hands))
    a, b = mine[order[:-1]], mine[order[1:]]
    x, y = theirs[order[:-1]], theirs[order[1:]]
    assert (np.sign(a - b) == np.sign(x - y)).all()


def test_scorer_covers_every_category_and_marks_shared_cards():
    rng = random.Random(9)
    hands = (_random_hands(rng, 10_000, [c for c in range(52) if c & 3 < 2])
             + _random_hands(rng, 10_000, [c for c in range(52) if c >> 2 < 6]))
    seen = {int(s) >> CATEGORY_SHIFT for s in _scored(hands)}
    assert seen == set(range(10))
    board = parse_cards("As Ks Qs Js 2d")
    scores = badbeat_exact.score_holes([board])[0]
    for i, pair in enumerate(badbeat_exact.PAIRS.tolist()):
        assert (scores[i] == -1) == bool(set(pair) & set(board))


# ---- single boards against brute force ----

def _brute_force(board):
    # Ordered (player, dealer) pairs on this board: paying lines in both modes
    # (par.bad_beat_line), the losing category of every non-tie, and the ties.
    rest = [c for c in range(52) if c not in board]
    pairs = list(combinations(rest, 2))
    scores = [evaluator.score(bytes(list(p) + board), 7) for p in pairs]
    bits = [(1 << a) | (1 << b) for a, b in pairs]
    two_way, player_loses, losers = Counter(), Counter(), Counter()
    ties = 0
    line = par.bad_beat_line
    for pb, ps in zip(bits, scores, strict=True):
        for db, ds in zip(bits, scores, strict=True):
            if pb & db:
                continue
            if ps == ds:
                ties += 1
                continue
            losers[NAMES[min(ps, ds) >> CATEGORY_SHIFT]] += 1
            hit = line(ps, ds, "two_way")
            if hit is not None:
                two_way[hit] += 1
            hit = line(ps, ds, "player_loses")
            if hit is not None:
                player_loses[hit] += 1
    return two_way, player_loses, losers, ties


BOARDS = [
    "8h 9h Th 2c Kd",    # open-ended straight flush draw
    "7c 7d Ks 4h 2s",    # paired
    "2s 6s 9s Qs 3d",    # four to a flush
    "9s 9h 9d 4c 4h",    # full house on board: quads and better full houses
    "Ts Js Qs Ks As",    # royal on board: every deal ties
]


@pytest.mark.parametrize("board", BOARDS + ["random%d" % i for i in range(3)])
def test_board_counts_match_brute_force(board):
    if board.startswith("random"):
        board = random.Random(board).sample(range(52), 5)
    else:
        board = parse_cards(board)
    two_way, player_loses, losers, ties = _brute_force(board)
    mine = dict(zip(NAMES, badbeat_exact.losing_pairs(np.array([board]))[0].tolist(),
                    strict=True))
    for name in PAYING:
        assert 2 * mine[name] == two_way[name], name
        assert mine[name] == player_loses[name], name
        # The deal is symmetric in player and dealer.
        assert two_way[name] == 2 * player_loses[name], name
    for name in NAMES:
        assert 2 * mine[name] == losers[name], name
    assert 2 * sum(mine.values()) + ties == 1081 * 990


def test_board_counts_ignore_suit_names():
    rng = random.Random(4)
    boards = [rng.sample(range(52), 5) for _ in range(20)]
    perms = [rng.sample(range(4), 4) for _ in boards]
    renamed = [[(c & ~3) | perm[c & 3] for c in board] for board, perm in zip(boards, perms,
                                                                              strict=True)]
    assert (badbeat_exact.losing_pairs(np.array(boards))
            == badbeat_exact.losing_pairs(np.array(renamed))).all()


def test_board_classes_are_the_suit_orbits():
    boards, weights = badbeat_exact.board_classes()
    assert len(boards) == 134_459
    assert int(weights.sum()) == math.comb(52, 5)
    reps = {frozenset(b): int(w) for b, w in zip(boards.tolist(), weights.tolist(),
                                                  strict=True)}
    assert len(reps) == len(boards)
    rng = random.Random(6)
    for _ in range(300):
        board = rng.sample(range(52), 5)
        orbit = {frozenset((c & ~3) | p[c & 3] for c in board) for p in permutations(range(4))}
        found = [o for o in orbit if o in reps]
        assert len(found) == 1
        assert reps[found[0]] == len(orbit)


# ---- the whole deck ----

# Every deal counted, once a module: 45-80 s on the 2-core machine, so every
# test taking it is marked slow (leaving out one would move the cost to the next).
@pytest.fixture(scope="module")
def exact():
    calls = []
    two_way, total = badbeat_exact.bad_beat_counts("two_way", progress=lambda d, t:
                                                    calls.append((d, t)))
    one_way, one_total = badbeat_exact.bad_beat_counts("player_loses")
    losers, pairs_total = badbeat_exact.loser_counts()
    return {"two_way": two_way, "player_loses": one_way, "total": total,
            "one_total": one_total, "losers": losers, "pairs_total": pairs_total,
            "calls": calls}


@pytest.mark.slow
def test_totals_and_progress(exact):
    assert exact["total"] == exact["one_total"] == ALL_DEALS == PUBLISHED_TOTAL
    assert 2 * exact["pairs_total"] == ALL_DEALS
    assert list(exact["two_way"]) == list(PAYING)
    assert list(exact["player_loses"]) == list(PAYING)
    assert all(isinstance(v, int) and v > 0 for v in exact["two_way"].values())
    calls = exact["calls"]
    assert calls and calls[-1][0] == calls[-1][1]
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


@pytest.mark.slow
def test_matches_published_exact_count(exact):
    for name in PAYING:
        assert exact["two_way"][name] == PUBLISHED_TWO_WAY[name], name
    for name in NAMES:
        assert 2 * exact["losers"][name] == PUBLISHED_TWO_WAY[name], name
    ties = exact["pairs_total"] - sum(exact["losers"].values())
    assert 2 * ties == PUBLISHED_PUSHES
    assert sum(PUBLISHED_TWO_WAY.values()) + PUBLISHED_PUSHES == PUBLISHED_TOTAL


@pytest.mark.slow
@pytest.mark.parametrize("mode, seed", [("two_way", 2024), ("player_loses", 653)])
def test_monte_carlo_agrees(exact, mode, seed):
    deals = 300_000
    sheet = par.par_sheet("bad_beat", "C", deals=deals, seed=seed, bad_beat_mode=mode)
    seen = {line["line"]: line["combinations"] for line in sheet["lines"]}
    assert set(seen) == set(PAYING)
    for name in PAYING:
        p = exact[mode][name] / exact["total"]
        error = math.sqrt(p * (1 - p) / deals)
        assert abs(seen[name] / deals - p) <= 4 * error, (name, seen[name], p * deals)


@pytest.mark.slow
def test_return_paytable_c(exact):
    table = paytables.get("bad_beat", "C")
    assert {name: to for name, to, per in table.lines} == ODDS_C
    returned = sum(Fraction(exact["two_way"][name] * (1 + ODDS_C[name]), exact["total"])
                   for name in PAYING)
    published = sum(Fraction(PUBLISHED_TWO_WAY[name] * (1 + ODDS_C[name]), PUBLISHED_TOTAL)
                    for name in PAYING)
    assert returned == published
    assert 0 < returned < 1


@pytest.mark.slow
@pytest.mark.parametrize("mode, share", [("two_way", 1), ("player_loses", Fraction(1, 2))])
def test_par_sheet_and_cli_are_exact_by_default(exact, capsys, mode, share):
    # The published count priced at the regulation's odds: two-way 83.36%,
    # and player_loses half of what two-way pays (only the player's losing hand).
    published = share * sum(Fraction(PUBLISHED_TWO_WAY[name] * (1 + ODDS_C[name]),
                                     PUBLISHED_TOTAL) for name in PAYING)
    sheet = par.par_sheet("bad_beat", "C", bad_beat_mode=mode)
    assert sheet["method"] == "exact" and sheet["total"] == PUBLISHED_TOTAL
    assert sheet["return"] == "%d/%d" % (published.numerator, published.denominator)
    assert "exact count over 2,781,381,002,400 deals" in par.format_sheet(sheet)
    assert uthctl(["par", "bad_beat", "C", "--bad-beat-mode", mode, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["method"] == "exact" and printed["return"] == sheet["return"]


def test_a_seed_without_deals_is_refused():
    with pytest.raises(ValueError, match="give a number of deals"):
        par.par_sheet("bad_beat", "C", seed=4)


def test_unknown_mode_refused():
    with pytest.raises(ValueError):
        badbeat_exact.bad_beat_counts("one_way")
