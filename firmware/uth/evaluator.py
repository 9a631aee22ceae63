# The hand evaluator: viper-compiled where it loads and scores known hands
# right (eval_check.py), its plain twin elsewhere (CPython, a build without
# the native emitter, a port whose native code fails when it runs).
# score(hand, n) is the hot path (see eval_plain for the score layout);
# evaluate() and best_five() serve callers holding a list of card codes.
from .categories import CATEGORY_SHIFT
from .let_go import let_go


def _native():
    # eval_viper's score if it loads here and passes the known hands, else None.
    # Checked once at import, so the hot path pays nothing for it.
    try:
        from .eval_viper import score
    except Exception:  # noqa: BLE001 -- CPython, or a build without the native emitter
        return None
    from . import eval_check

    proven = eval_check.scores_known_hands(score)
    let_go(eval_check.__name__)
    return score if proven else None


score = _native()
KIND = "viper"
if score is None:
    from .eval_plain import score

    KIND = "plain"


def evaluate(codes):
    n = len(codes)
    if n < 5 or n > 7:
        raise ValueError("a hand needs 5 to 7 cards, got %d" % n)
    return score(bytes(codes), n)


def category_of(codes):
    return evaluate(codes) >> CATEGORY_SHIFT


def _five_card_subsets(n):
    # Index tuples of every five-card subset of n cards, in lexicographic order.
    for a in range(n - 4):
        for b in range(a + 1, n - 3):
            for c in range(b + 1, n - 2):
                for d in range(c + 1, n - 1):
                    for e in range(d + 1, n):
                        yield (a, b, c, d, e)


_WHEEL_RANKS = (0, 1, 2, 3, 12)


def _by_significance(five):
    # Larger groups first (the trips of a full house before its pair), then
    # rank; in A-2-3-4-5 the ace plays low, so it goes last.
    wheel = sorted(code >> 2 for code in five) == list(_WHEEL_RANKS)

    def key(code):
        same = 0
        for other in five:
            same += (other >> 2) == (code >> 2)
        rank_part = code - 52 if wheel and code >> 2 == 12 else code
        return -(same * 128 + rank_part)

    return sorted(five, key=key)


def best_five(codes):
    # The five cards that make the hand, the most significant first.
    target = evaluate(codes)
    for subset in _five_card_subsets(len(codes)):
        five = [codes[i] for i in subset]
        if score(bytes(five), 5) == target:
            return _by_significance(five)
    raise AssertionError("no five-card subset reaches the hand's score")
