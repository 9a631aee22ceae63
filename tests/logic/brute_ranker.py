# An independent poker ranker for checking the evaluator: it shares no code
# with firmware/. Five cards are ranked by plain sorting and counting; more
# cards by the best of every five-card subset. Returns (category, ranks) where
# category follows 653a.6 (0 high card .. 9 royal flush) and ranks break ties.


def _groups(ranks):
    counts = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    # Bigger groups first, then higher ranks: AAKKQ -> [(2, A), (2, K), (1, Q)]
    return sorted([(n, r) for r, n in counts.items()], reverse=True)


def _straight_high(ranks):
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != 5:
        return None
    if distinct[0] - distinct[4] == 4:
        return distinct[0]
    if distinct == [12, 3, 2, 1, 0]:
        return 3  # A-2-3-4-5: the five is the high card
    return None


def rank5(cards):
    ranks = [c // 4 for c in cards]
    flush = len(set(c % 4 for c in cards)) == 1
    high = _straight_high(ranks)
    groups = _groups(ranks)
    shape = [n for n, r in groups]
    ordered = [r for n, r in groups]
    if high is not None and flush:
        return (9 if high == 12 else 8, [high])
    if shape == [4, 1]:
        return (7, ordered)
    if shape == [3, 2]:
        return (6, ordered)
    if flush:
        return (5, ordered)
    if high is not None:
        return (4, [high])
    if shape == [3, 1, 1]:
        return (3, ordered)
    if shape == [2, 2, 1]:
        return (2, ordered)
    if shape == [2, 1, 1, 1]:
        return (1, ordered)
    return (0, ordered)


def subsets(items, k):
    if k == 0:
        return [[]]
    if len(items) < k:
        return []
    first = items[0]
    with_first = [[first] + rest for rest in subsets(items[1:], k - 1)]
    return with_first + subsets(items[1:], k)


def best_rank(cards):
    return max(rank5(five) for five in subsets(list(cards), 5))


def compare(a, b):
    return (a > b) - (a < b)


def layout_score(cards):
    # The evaluator's score for these cards as its layout documents it
    # (eval_plain's header), built from this ranker's (category, ranks): the
    # category << 26, the deciding ranks' mask << 13, the kickers' mask; a
    # straight's low bits the bit of its run (bit i: the run from rank i - 1).
    category, ranks = best_rank(cards)
    if category in (4, 8, 9):
        return (category << 26) | (1 << (ranks[0] - 3))
    deciding = {7: 1, 6: 1, 3: 1, 2: 2, 1: 1}.get(category, 0)
    primary = kickers = 0
    for rank in ranks[:deciding]:
        primary |= 1 << rank
    for rank in ranks[deciding:]:
        kickers |= 1 << rank
    return (category << 26) | (primary << 13) | kickers
