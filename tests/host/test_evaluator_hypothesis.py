# The evaluator against the independent brute-force ranker (tests/logic/
# brute_ranker.py) on hands hypothesis chooses: categories agree, and two
# hands compare the same way under both.
from hypothesis import given, settings
from hypothesis import strategies as st

from brute_ranker import best_rank, compare
from uth.evaluator import best_five, evaluate

DECK = list(range(52))


def hands(size):
    return st.lists(st.sampled_from(DECK), min_size=size, max_size=size, unique=True)


@settings(max_examples=1500, deadline=None)
@given(st.integers(min_value=5, max_value=7).flatmap(lambda n: hands(2 * n)))
def test_two_hands_compare_as_the_brute_ranker_says(cards):
    n = len(cards) // 2
    first, second = cards[:n], cards[n:]
    s1, s2 = evaluate(first), evaluate(second)
    r1, r2 = best_rank(first), best_rank(second)
    assert s1 >> 26 == r1[0] and s2 >> 26 == r2[0]
    assert compare(s1, s2) == compare(r1, r2)


@settings(max_examples=500, deadline=None)
@given(st.integers(min_value=5, max_value=7).flatmap(hands))
def test_best_five_is_a_subset_ranking_as_the_whole_hand(cards):
    five = best_five(cards)
    assert len(set(five)) == 5 and set(five) <= set(cards)
    assert best_rank(five) == best_rank(cards)
