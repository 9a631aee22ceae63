# Exact hit counts for the Bad Beat side wager (58 Pa. Code 653b.3): every
# ordered deal of player pair, dealer pair and five-card board, counted, not
# sampled.
#
# How: scores do not change when the four suits are renamed, so the 2,598,960
# boards fall into 134,459 classes under the 24 suit permutations; each class
# is scored once and weighed by its size. On one board, with every hole pair
# that avoids it scored (numpy, tables built from uth.evaluator.score so the
# scores are the evaluator's own integers), the pairs Y disjoint from a pair X
# that strictly beat it are, by inclusion-exclusion, all pairs above X less
# those above it holding X's first card, less those holding its second (X
# itself ties, and no other pair holds both). Counting "above" is a sort: in
# an ascending row the entries above position j are those past the last copy
# of its value.
import math
from functools import lru_cache
from itertools import combinations, permutations

import numpy as np

from uth import categories, evaluator
from uth.round import BAD_BEAT_MODES

# The categories a strictly losing hand can be paid at; a royal never loses.
PAYING = tuple(range(categories.THREE_OF_A_KIND, categories.ROYAL_FLUSH))
_SHIFT = categories.CATEGORY_SHIFT
_BINS = len(categories.NAMES)
_CHUNK = 1024  # board classes scored at a time (some tens of MB of work arrays)

# Every hole pair {a < b} of the deck, in lexicographic order.
PAIRS = np.array(list(combinations(range(52), 2)), dtype=np.int64)
_PAIR_INDEX = np.full((52, 52), -1, dtype=np.int64)
_PAIR_INDEX[PAIRS[:, 0], PAIRS[:, 1]] = np.arange(len(PAIRS))
_PAIR_INDEX[PAIRS[:, 1], PAIRS[:, 0]] = np.arange(len(PAIRS))
# Row c: the 51 pairs that hold card c.
_WITH_CARD = np.array([[_PAIR_INDEX[c, o] for o in range(52) if o != c] for c in range(52)],
                      dtype=np.int64)
_PAIR_BITS = (np.int64(1) << PAIRS[:, 0]) | (np.int64(1) << PAIRS[:, 1])


def _rank_key(counts):
    # Base-5 digits: how many cards of each rank.
    key = 0
    for rank in range(12, -1, -1):
        key = key * 5 + counts[rank]
    return key


def _multisets(n):
    # Rank counts (0..4 a rank) of every n-card rank multiset.
    out = []

    def walk(rank, left, counts):
        if rank == 13:
            if not left:
                out.append(tuple(counts))
            return
        for c in range(min(4, left) + 1):
            counts.append(c)
            walk(rank + 1, left - c, counts)
            counts.pop()

    walk(0, n, [])
    return out


def _plain_hand(counts):
    # Cards with these rank counts and no flush: dealt in rank order onto the
    # suits in turn, so a suit gets at most two of seven and a rank's cards
    # (consecutive, at most four) all differ in suit.
    cards = []
    for rank, c in enumerate(counts):
        for _ in range(c):
            cards.append(rank * 4 + len(cards) % 4)
    return cards


@lru_cache(maxsize=None)
def tables():
    # (board rank keys sorted, plain[board class, r1 * 13 + r2],
    #  flush[13-bit suit mask], popcount[13-bit mask])
    # plain: the score of a seven-card hand with no flush, from the board's
    # rank multiset and the two hole ranks; -1 where the ranks cannot be dealt.
    # flush: the score of a hand whose flush suit holds exactly those ranks.
    score = evaluator.score
    seven = {}
    for counts in _multisets(7):
        seven[_rank_key(counts)] = score(bytes(_plain_hand(counts)), 7)
    board_keys = np.array(sorted(_rank_key(c) for c in _multisets(5)), dtype=np.int64)
    hole = np.array([5**r1 + 5**r2 for r1 in range(13) for r2 in range(13)], dtype=np.int64)
    plain = np.array([[seven.get(int(k), -1) for k in b + hole] for b in board_keys],
                     dtype=np.int32)
    flush = np.zeros(1 << 13, dtype=np.int32)
    popcount = np.zeros(1 << 13, dtype=np.int8)
    for mask in range(1 << 13):
        ranks = [r for r in range(13) if mask >> r & 1]
        popcount[mask] = len(ranks)
        if 5 <= len(ranks) <= 7:
            flush[mask] = score(bytes(r * 4 for r in ranks), len(ranks))
    return board_keys, plain, flush, popcount


def score_holes(boards):
    # boards: (B, 5) card codes. Returns (B, 1326) int32: the seven-card
    # score of each board with each pair of PAIRS, -1 where they share a card.
    board_keys, plain, flush, popcount = tables()
    boards = np.asarray(boards, dtype=np.int64)
    ranks, suits = boards >> 2, boards & 3
    key = (np.int64(5) ** ranks).sum(axis=1)
    board_class = np.searchsorted(board_keys, key)
    r1, r2 = PAIRS[:, 0] >> 2, PAIRS[:, 1] >> 2
    out = plain[board_class[:, None], (r1 * 13 + r2)[None, :]]
    # Only a suit holding three or more board cards can make a flush, and five
    # cards hold at most one such suit.
    suit_counts = np.stack([(suits == s).sum(axis=1) for s in range(4)], axis=1)
    flush_suit = suit_counts.argmax(axis=1)
    on_suit = (suits == flush_suit[:, None]) & (suit_counts.max(axis=1) >= 3)[:, None]
    board_mask = (on_suit * (np.int64(1) << ranks)).sum(axis=1)
    pair_masks = np.stack([((PAIRS[:, 0] & 3) == s) * (np.int64(1) << r1)
                           | ((PAIRS[:, 1] & 3) == s) * (np.int64(1) << r2)
                           for s in range(4)])
    masks = board_mask[:, None] | pair_masks[flush_suit]
    flushed = popcount[masks] >= 5
    out = np.where(flushed, flush[masks], out)
    bits = (np.int64(1) << boards).sum(axis=1)
    out[(bits[:, None] & _PAIR_BITS[None, :]) != 0] = -1
    return out


def _above_by_category(rows):
    # rows: (..., n) scores. Sums, per leading index and category, over the
    # entries of that category of how many entries of the row are strictly
    # above them; -1 entries (no pair) count for nothing. Returns (lead, _BINS).
    n = rows.shape[-1]
    lead = rows.size // n
    srt = np.sort(rows.reshape(lead, n), axis=1)
    last = np.full(srt.shape, n, dtype=np.int32)
    at = np.arange(n, dtype=np.int32)
    ends = np.empty(srt.shape, dtype=bool)
    ends[:, :-1] = srt[:, 1:] != srt[:, :-1]
    ends[:, -1] = True
    np.copyto(last, at, where=ends)
    last = np.minimum.accumulate(last[:, ::-1], axis=1)[:, ::-1]
    above = n - 1 - last
    # Bin 0 takes the -1 entries (their category shifts to -1), bin k + 1 category k.
    bins = (srt >> _SHIFT) + 1
    keys = (np.arange(lead, dtype=np.int64)[:, None] * (_BINS + 1) + bins).ravel()
    sums = np.bincount(keys, weights=above.ravel(), minlength=lead * (_BINS + 1))
    # Float sums of integers below 2**53: exact.
    return np.rint(sums).astype(np.int64).reshape(lead, _BINS + 1)[:, 1:]


def losing_pairs(boards):
    # boards: (B, 5). Returns (B, _BINS) int64: per board, per category k, the
    # unordered pairs {X, Y} of disjoint hole pairs avoiding the board whose
    # scores differ, the lower (X) being of category k.
    scores = score_holes(boards)
    above = _above_by_category(scores)
    shared = _above_by_category(scores[:, _WITH_CARD]).reshape(len(scores), 52, _BINS)
    return above - shared.sum(axis=1)


def board_classes():
    # (boards (N, 5) card codes, weights (N,)): one board of each class under
    # the 24 suit permutations, and how many of the C(52, 5) boards it stands for.
    cards = np.fromiter((c for board in combinations(range(52), 5) for c in board),
                        dtype=np.int64, count=5 * math.comb(52, 5)).reshape(-1, 5)
    masks = np.bitwise_or.reduce(np.int64(1) << cards, axis=1)
    del cards
    clubs = sum(1 << (4 * r) for r in range(13))
    per_suit = [(masks >> s) & clubs for s in range(4)]
    canonical = None
    for perm in permutations(range(4)):
        moved = per_suit[0] << perm[0]
        for s in range(1, 4):
            moved |= per_suit[s] << perm[s]
        canonical = moved if canonical is None else np.minimum(canonical, moved)
    reps, weights = np.unique(canonical, return_counts=True)
    bits = (reps[:, None] >> np.arange(52, dtype=np.int64)) & 1
    boards = np.nonzero(bits)[1].reshape(-1, 5)
    return boards, weights.astype(np.int64)


_computed = []  # (per-category counts, board classes): the count runs once a process


def loser_counts(progress=None):
    # (losers, total): losers maps every category name to the number of
    # (board, unordered {X, Y}) with X and Y disjoint hole pairs off the board
    # and X's hand strictly below Y's, X of that category; total counts every
    # (board, {X, Y}), so total - sum(losers.values()) are the ties.
    # progress(done, total_steps), if given, hears of each chunk of boards;
    # once counted, the result is kept and progress hears (steps, steps) only.
    if _computed:
        unordered, steps = _computed[0]
        if progress is not None:
            progress(steps, steps)
    else:
        boards, weights = board_classes()
        steps = len(boards)
        unordered = [0] * _BINS
        for start in range(0, steps, _CHUNK):
            stop = min(start + _CHUNK, steps)
            per_board = losing_pairs(boards[start:stop])
            chunk = (weights[start:stop, None] * per_board).sum(axis=0)
            # Python ints from here: the totals over every board pass 2**63.
            unordered = [u + int(c) for u, c in zip(unordered, chunk, strict=True)]
            if progress is not None:
                progress(stop, steps)
        _computed.append((tuple(unordered), steps))
    total = math.comb(52, 5) * math.comb(47, 2) * math.comb(45, 2) // 2
    return dict(zip(categories.NAMES, unordered, strict=True)), total


def check_mode(mode):
    if mode not in BAD_BEAT_MODES:
        raise ValueError("unknown bad_beat_mode %r (known: %s)"
                         % (mode, ", ".join(BAD_BEAT_MODES)))


def bad_beat_counts(mode="two_way", progress=None):
    # (hits, total): hits maps each category a losing hand is paid at (the
    # Bad Beat lines: straight_flush down to three_of_a_kind) to the exact
    # number of ordered deals (player pair, dealer pair, board) paying at it;
    # total = C(52, 5) * C(47, 2) * C(45, 2), every ordered deal.
    # progress(done, total_steps), if given, is called now and then.
    check_mode(mode)
    losers, pairs_total = loser_counts(progress)
    if losers[categories.NAMES[categories.ROYAL_FLUSH]]:
        raise AssertionError("a royal flush counted as a losing hand")
    # Each unordered {loser, winner} is two ordered deals in two_way (either
    # side may hold the loser), one in player_loses (the player must hold it).
    ordered = 2 if mode == "two_way" else 1
    hits = {categories.NAMES[k]: ordered * losers[categories.NAMES[k]] for k in reversed(PAYING)}
    return hits, 2 * pairs_total
