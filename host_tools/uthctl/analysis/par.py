# Par sheets for the settled side wagers: how often each paying line hits,
# what it returns, and the house edge. Trips, Play the Board and Ultimate
# Pairs are counted exactly (no dealing); Bad Beat, which needs the player's
# and the dealer's hands together, is counted exactly over every deal by
# badbeat_exact.py (seconds), or estimated by a seeded Monte Carlo when a
# number of deals is given.
#
# Return per unit wagered = 1 + EV: a win gives back stake + stake * odds,
# a loss nothing. house_edge = -EV = 1 - return.
import math
import random
from fractions import Fraction
from functools import lru_cache
from itertools import combinations

from uth import categories, evaluator, paytables
from uth.pairs import pairs_lines
from uth.settle import bad_beat_losing_score

from ..errors import InputError
from . import badbeat_exact
from .badbeat_exact import check_mode

_NAMES = categories.NAMES
_PAIR = categories.PAIR
_TRIPS = categories.THREE_OF_A_KIND
_STRAIGHT = categories.STRAIGHT
_FLUSH = categories.FLUSH
_STRAIGHT_FLUSH = categories.STRAIGHT_FLUSH
_ROYAL = categories.ROYAL_FLUSH
_SHIFT = categories.CATEGORY_SHIFT
_TEN = 8  # rank index of the ten: Play the Board's pair must be tens or better
_ACE, _KING, _QUEEN, _JACK = 12, 11, 10, 9
_ACE_DIAMONDS, _ACE_HEARTS = _ACE * 4 + 1, _ACE * 4 + 2
_PROGRESS_EVERY = 10_000


# ---- exact counting of n-card hands (n = 5 or 7) by category ----

def _runs(mask):
    # Bit i set: a five-card run starting at rank i - 1 (bit 0 is A-2-3-4-5),
    # so bit 9 is the ten-to-ace run, the highest there is.
    m = (mask << 1) | (mask >> 12)
    return m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4)


def _rank_vectors(n):
    # Every way n cards can fall on the 13 ranks, 0..4 cards a rank.
    counts = [0] * 13

    def walk(rank, left):
        if rank == 12:
            if left <= 4:
                counts[12] = left
                yield tuple(counts)
            return
        if left > 4 * (13 - rank):
            return
        for c in range(min(4, left) + 1):
            counts[rank] = c
            yield from walk(rank + 1, left - c)
        counts[rank] = 0

    return walk(0, n)


def _rank_category(counts):
    # Category of a hand whose suits make no flush, from its ranks alone;
    # for a one-pair hand also the pair's rank (-1 otherwise).
    mask = 0
    groups = [0] * 5
    pair_rank = -1
    for rank in range(13):
        c = counts[rank]
        if c:
            mask |= 1 << rank
            groups[c] += 1
            if c == 2:
                pair_rank = rank
    if groups[4]:
        return categories.FOUR_OF_A_KIND, -1
    if groups[3] and (groups[2] or groups[3] > 1):
        return categories.FULL_HOUSE, -1
    if _runs(mask):
        return _STRAIGHT, -1
    if groups[3]:
        return _TRIPS, -1
    if groups[2] > 1:
        return categories.TWO_PAIR, -1
    if groups[2]:
        return _PAIR, pair_rank
    return categories.HIGH_CARD, -1


def _suit_assignments(counts, n):
    # (all suit assignments, those with no suit holding five or more cards).
    # With n <= 7 only one suit can hold five, so the flushes are 4 times
    # those where one given suit holds 5+: a product of per-rank polynomials
    # in x = "this rank's card of that suit is in the hand".
    total = 1
    poly = [1]
    for c in counts:
        if not c:
            continue
        total *= math.comb(4, c)
        without, with_ = math.comb(3, c), math.comb(3, c - 1)
        nxt = [0] * (len(poly) + 1)
        for j, v in enumerate(poly):
            nxt[j] += v * without
            nxt[j + 1] += v * with_
        poly = nxt
    flushes = 4 * sum(poly[5:n + 1])
    return total, total - flushes


def _flush_category(mask):
    runs = _runs(mask)
    if runs >> 9:
        return _ROYAL
    if runs:
        return _STRAIGHT_FLUSH
    return _FLUSH


@lru_cache(maxsize=None)
def _exact_counts(n):
    # (hands by category, one-pair hands by pair rank) over all C(52, n).
    by_category = [0] * 10
    pairs_by_rank = [0] * 13
    for counts in _rank_vectors(n):
        _, plain = _suit_assignments(counts, n)
        if not plain:
            continue
        category, pair_rank = _rank_category(counts)
        by_category[category] += plain
        if pair_rank >= 0:
            pairs_by_rank[pair_rank] += plain
    # A flush: one suit, k >= 5 ranks F of it, and n - k cards of the other 39.
    # In seven cards a flush leaves no room for quads or a full house, so F
    # alone decides the category.
    for k in range(5, n + 1):
        others = 4 * math.comb(39, n - k)
        for ranks in combinations(range(13), k):
            mask = 0
            for r in ranks:
                mask |= 1 << r
            by_category[_flush_category(mask)] += others
    return tuple(by_category), tuple(pairs_by_rank)


def hand_category_counts(n):
    # {category name: number of n-card hands}, n = 5 or 7, over all C(52, n).
    if n not in (5, 7):
        raise ValueError("hands of 5 or 7 cards only, got %r" % (n,))
    by_category, _ = _exact_counts(n)
    return dict(zip(_NAMES, by_category, strict=True))


def _trips_hits(table):
    by_category, _ = _exact_counts(7)
    return {name: by_category[categories.category_index(name)] for name, _, _ in table.lines}


def _board_hits(table):
    by_category, pairs_by_rank = _exact_counts(5)
    hits = {}
    for name, _, _ in table.lines:
        if name == "pair":
            hits[name] = sum(pairs_by_rank[_TEN:])
        else:
            hits[name] = by_category[categories.category_index(name)]
    return hits


# ---- Ultimate Pairs ----

def _first_line(table, candidates):
    for line in candidates:
        if table.odds(line) is not None:
            return line
    return None


def _pairs_hits(table):
    # Paytable F's first line needs the dealer's aces too. Then every player
    # hand is weighed by the C(50, 2) dealer hands: of those, exactly one is
    # the other two aces when the player holds a pair of aces.
    dealer_line = table.odds("aa_and_dealer_aa") is not None
    dealer_hands = math.comb(50, 2) if dealer_line else 1
    hits = {name: 0 for name, _, _ in table.lines}
    for a, b in combinations(range(52), 2):
        candidates = pairs_lines((a, b))
        weight = dealer_hands
        if dealer_line and "aa" in candidates:
            hits["aa_and_dealer_aa"] += 1
            weight -= 1
        line = _first_line(table, candidates)
        if line is not None:
            hits[line] += weight
    return hits, math.comb(52, 2) * dealer_hands


# ---- Bad Beat ----

def bad_beat_line(player_score, dealer_score, mode="two_way"):
    # The category the wager is paid at, or None when it loses; the rule is
    # the firmware's own, so the par sheet prices what the table settles.
    check_mode(mode)
    losing = bad_beat_losing_score(player_score, dealer_score, mode)
    if losing is None or losing >> _SHIFT < _TRIPS:
        return None
    return _NAMES[losing >> _SHIFT]


def _bad_beat_hits(table, deals, seed, mode, progress):
    rng = random.Random(seed)
    deck = range(52)
    score = evaluator.score
    paying = {name for name, _, _ in table.lines}
    hits = {name: 0 for name, _, _ in table.lines}
    for done in range(1, deals + 1):
        cards = rng.sample(deck, 9)
        board = cards[4:]
        player = score(bytes(cards[0:2] + board), 7)
        dealer = score(bytes(cards[2:4] + board), 7)
        line = bad_beat_line(player, dealer, mode)
        if line in paying:
            hits[line] += 1
        if progress is not None and (done % _PROGRESS_EVERY == 0 or done == deals):
            progress(done, deals)
    return hits


# ---- the sheet ----

def _ratio(value):
    return "%d/%d" % (value.numerator, value.denominator)


def _odds(to, per):
    return Fraction(to, per)


def _standard_error(table, hits, deals):
    # Of the mean return per deal: each deal pays 1 + odds or 0.
    mean = sum_sq = 0.0
    for name, to, per in table.lines:
        pay = float(1 + _odds(to, per))
        share = hits[name] / deals
        mean += share * pay
        sum_sq += share * pay * pay
    return math.sqrt(max(sum_sq - mean * mean, 0.0) * deals / (deals - 1) / deals)


def _check_deals(deals):
    # Two deals at least: one alone gives no standard error.
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2:
        raise InputError("deals must be a whole number of 2 or more, got %r" % (deals,))
    return deals


def par_sheet(wager, letter, deals=None, seed=None, progress=None, bad_beat_mode="two_way"):
    # deals (and seed) ask for Bad Beat's Monte Carlo; without them it is exact.
    table = paytables.get(wager, letter)
    sheet = {"wager": wager, "letter": letter, "section": table.section,
             "effective": table.effective, "expires": table.expires}
    if wager == "trips":
        hits, total = _trips_hits(table), math.comb(52, 7)
    elif wager == "play_the_board":
        hits, total = _board_hits(table), math.comb(52, 5)
    elif wager == "ultimate_pairs":
        hits, total = _pairs_hits(table)
    elif wager == "bad_beat":
        check_mode(bad_beat_mode)
        if deals is None:
            if seed is not None:
                raise InputError("a seed is for the Monte Carlo: give a number of deals too")
            counted, total = badbeat_exact.bad_beat_counts(bad_beat_mode, progress)
            hits = {name: counted[name] for name, _, _ in table.lines}
            sheet.update(method="exact", bad_beat_mode=bad_beat_mode)
            return _fill(sheet, table, hits, total)
        deals = _check_deals(deals)
        if seed is None:
            # Record a seed even when none was given, so any run can be repeated.
            seed = random.SystemRandom().randrange(2**32)
        hits = _bad_beat_hits(table, deals, seed, bad_beat_mode, progress)
        total = deals
        sheet.update(method="monte_carlo", deals=deals, seed=seed, bad_beat_mode=bad_beat_mode)
    else:
        raise InputError("no par sheet for wager %r (known: %s)"
                         % (wager, ", ".join(paytables.SETTLED_WAGERS)))
    if wager != "bad_beat":
        sheet["method"] = "exact"
        if progress is not None:
            progress(1, 1)
    return _fill(sheet, table, hits, total)


def _fill(sheet, table, hits, total):
    lines = []
    returned = Fraction(0)
    for name, to, per in table.lines:
        probability = Fraction(hits[name], total)
        share = probability * (1 + _odds(to, per))
        returned += share
        lines.append({"line": name, "odds": "%d to %d" % (to, per), "to": to, "per": per,
                      "combinations": hits[name], "probability": float(probability),
                      "return_share": float(share)})
    losing = total - sum(hits.values())
    edge = 1 - returned
    sheet["total"] = total
    sheet["lines"] = lines
    sheet["losing"] = {"combinations": losing, "probability": losing / total}
    sheet["return"] = _ratio(returned)
    sheet["return_percent"] = float(returned * 100)
    sheet["house_edge"] = _ratio(edge)
    sheet["house_edge_percent"] = float(edge * 100)
    if sheet["method"] == "monte_carlo":
        sheet["standard_error_percent"] = 100 * _standard_error(table, hits, total)
    return sheet


def format_sheet(sheet):
    title = "%s paytable %s (%s)" % (sheet["wager"].replace("_", " ").title(),
                                      sheet["letter"], sheet["section"])
    if sheet["method"] == "exact" and sheet["wager"] == "bad_beat":
        how = "exact count over %s deals (player, dealer, board), mode %s" % (
            format(sheet["total"], ","), sheet["bad_beat_mode"])
    elif sheet["method"] == "exact":
        how = "exact count over %s hands" % format(sheet["total"], ",")
    else:
        how = "Monte Carlo, %s deals, seed %s, mode %s" % (
            format(sheet["deals"], ","), sheet["seed"], sheet["bad_beat_mode"])
    out = [title, how, ""]
    row = "%-20s %12s %16s %12s %10s"
    out.append(row % ("line", "odds", "combinations", "probability", "return"))
    for line in sheet["lines"]:
        out.append(row % (line["line"], line["odds"], format(line["combinations"], ","),
                          "%.8f" % line["probability"], "%.6f" % line["return_share"]))
    losing = sheet["losing"]
    out.append(row % ("(loses)", "", format(losing["combinations"], ","),
                      "%.8f" % losing["probability"], "0"))
    out.append(row % ("total", "", format(sheet["total"], ","), "1", ""))
    out.append("")
    error = ""
    if sheet["method"] == "monte_carlo":
        error = " +/- %.4f%% (one standard error)" % sheet["standard_error_percent"]
    out.append("return      %.6f%%%s" % (sheet["return_percent"], error))
    out.append("house edge  %.6f%%%s" % (sheet["house_edge_percent"], error))
    if sheet["method"] == "monte_carlo":
        # A rare line that never hit adds nothing to the estimate or to its
        # standard error, so the real uncertainty is larger than shown.
        unseen = [line["line"] for line in sheet["lines"] if not line["combinations"]]
        if unseen:
            out.append("note: never hit in these deals: %s; the standard error leaves "
                       "them out" % ", ".join(unseen))
    if sheet["method"] == "exact":
        out.append("exactly     return %s, house edge %s" % (sheet["return"],
                                                              sheet["house_edge"]))
    return "\n".join(out)
