# The evaluator against hands whose rank 653a.6 settles by definition, and the
# budgets of design.md: no allocation per evaluation, scores that fit a small int.
import sys

from brute_ranker import best_rank, compare
from lcg import Lcg
from uth import eval_plain
from uth.cards import card_names, parse_cards
from uth.categories import NAMES
from uth.evaluator import best_five, evaluate

_EXPECTED_NAMES = ("high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
                   "full_house", "four_of_a_kind", "straight_flush", "royal_flush")

CASES = (
    ("As Ks Qs Js Ts 2c 3d", "royal_flush", "As Ks Qs Js Ts"),
    ("9s Ks Qs Js Ts As 3d", "royal_flush", "As Ks Qs Js Ts"),
    ("9s Ks Qs Js Ts 8s 3d", "straight_flush", "Ks Qs Js Ts 9s"),
    ("Ah 2h 3h 4h 5h 9c 9d", "straight_flush", "5h 4h 3h 2h Ah"),
    ("Ah Ad Ac As Kd Kh Kc", "four_of_a_kind", "As Ah Ad Ac Kd"),
    ("2h 2d 2c Kd Kh Ks 3c", "full_house", "Ks Kh Kd 2h 2d"),
    ("2h 5h 7h 9h Jh Qh Ad", "flush", "Qh Jh 9h 7h 5h"),
    ("As 2d 3c 4h 5s 9c 9d", "straight", "5s 4h 3c 2d As"),
    ("Ts Jd Qc Kh As 2c 3d", "straight", "As Kh Qc Jd Ts"),
    ("2h 2d 2c 9h Jh Kd Ad", "three_of_a_kind", "2h 2d 2c Ad Kd"),
    ("2h 2d 3c 3h Jh Kd Kc", "two_pair", "Kd Kc 3h 3c Jh"),
    ("2h 2d 3c 4h Jh Qd Kc", "pair", "2h 2d Kc Qd Jh"),
    ("2h 5d 3c 8h Jh Qd Kc", "high_card", "Kc Qd Jh 8h 5d"),
    ("Qs Ks As 2s 3h", "high_card", "As Ks Qs 3h 2s"),  # no wrap-around straight
)


def _name(cards):
    return NAMES[evaluate(parse_cards(cards)) >> 26]


def test_category_names_are_the_projects():
    assert NAMES == _EXPECTED_NAMES


def test_known_hands():
    for cards, category, best in CASES:
        assert _name(cards) == category, cards
        assert " ".join(card_names(best_five(parse_cards(cards)))) == best, cards


def test_wheel_is_the_lowest_straight():
    wheel = evaluate(parse_cards("As 2d 3c 4h 5s"))
    six_high = evaluate(parse_cards("6s 2d 3c 4h 5s"))
    trips = evaluate(parse_cards("Ks Kd Kc 4h 5s"))
    assert trips < wheel < six_high


def test_kickers_decide_and_suits_do_not():
    assert evaluate(parse_cards("Ah Ad Kc 4h 3s")) > evaluate(parse_cards("As Ac Qc Jh Ts"))
    assert evaluate(parse_cards("Ah Kd 9c 4h 3s")) == evaluate(parse_cards("As Kc 9d 4s 3h"))
    # The sixth and seventh cards do not count beyond the best five.
    assert evaluate(parse_cards("Ah Ad Kc Qh Js 3s 2d")) == evaluate(
        parse_cards("As Ac Kd Qs Jc 4s 2c"))


def test_five_six_and_seven_cards_agree_with_the_brute_ranker():
    rng = Lcg(2024)
    for n in (5, 6, 7):
        previous = previous_rank = None
        for _ in range(700):
            cards = rng.deal(n)
            s = evaluate(cards)
            rank = best_rank(cards)
            assert s >> 26 == rank[0], card_names(cards)
            if previous is not None:
                assert compare(s, previous) == compare(rank, previous_rank), card_names(cards)
            previous, previous_rank = s, rank


def test_bad_counts_are_refused():
    for cards in ("As Kd Qc Jh", "As Kd Qc Jh Ts 9s 8s 7s"):
        try:
            evaluate(parse_cards(cards))
        except ValueError as error:
            assert "5 to 7 cards" in str(error)
            continue
        raise AssertionError(cards)


def test_scores_fit_a_small_int():
    # 30 bits: a small int on 32-bit boards, so comparisons never allocate.
    top = evaluate(parse_cards("As Ks Qs Js Ts"))
    assert top < (1 << 30)


if sys.implementation.name == "micropython":
    import micropython

    from uth import eval_viper

    def _hands(count):
        rng = Lcg(7)
        for _ in range(count):
            yield bytes(rng.deal(7))

    def test_viper_and_plain_twins_agree():
        for hand in _hands(3000):
            for n in (5, 6, 7):
                assert eval_viper.score(hand, n) == eval_plain.score(hand, n), list(hand)

    def _rank_multisets(size, low=0):
        # Every nondecreasing list of `size` ranks from `low` up, no rank more than 4 times.
        if size == 0:
            yield []
            return
        for rank in range(low, 13):
            for rest in _rank_multisets(size - 1, rank):
                if rest[:4] != [rank] * 4:
                    yield [rank] + rest

    def test_twins_agree_on_every_rank_multiset():
        # Every shape of seven ranks (quads with trips, two trips, three pairs...),
        # random deals reach few of them. The k-th copy of a rank gets suit
        # (k + offset) % 4: offset = rank spreads the suits, offset 0 piles the
        # first copies into one suit (flushes with pairs beside them).
        checked = 0
        for ranks in _rank_multisets(7):
            copies = {}
            for spread in (True, False):
                codes = []
                for rank in ranks:
                    k = copies.get((spread, rank), 0)
                    copies[(spread, rank)] = k + 1
                    codes.append(rank * 4 + (k + (rank if spread else 0)) % 4)
                for hand in (bytes(codes), bytes(reversed(codes))):
                    for n in (5, 6, 7):
                        assert eval_viper.score(hand, n) == eval_plain.score(hand, n), list(hand)
                        checked += 1
        assert checked == 49205 * 12

    def _score_all_heap_locked(score, hands):
        total = 0
        micropython.heap_lock()
        try:
            for hand in hands:
                total ^= score(hand, 7)
        finally:
            micropython.heap_unlock()
        return total

    def test_no_allocation_per_evaluation():
        hands = list(_hands(200))
        # A MemoryError here means an evaluation allocated.
        assert _score_all_heap_locked(eval_viper.score, hands) == _score_all_heap_locked(
            eval_plain.score, hands)
