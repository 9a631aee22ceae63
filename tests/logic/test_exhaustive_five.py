# Every one of the C(52,5) = 2,598,960 five-card hands, counted by category.
# Expected counts are the standard combinatorial ones (e.g. flush =
# 4 * C(13,5) - 40 = 5,108), typed in here, not taken from the code.
from uth.evaluator import score

FIVE_CARD_COUNTS = {
    9: 4,
    8: 36,
    7: 624,
    6: 3744,
    5: 5108,
    4: 10200,
    3: 54912,
    2: 123552,
    1: 1098240,
    0: 1302540,
}


def _count_categories():
    counts = [0] * 10
    hand = bytearray(5)
    for a in range(48):
        hand[0] = a
        for b in range(a + 1, 49):
            hand[1] = b
            for c in range(b + 1, 50):
                hand[2] = c
                for d in range(c + 1, 51):
                    hand[3] = d
                    for e in range(d + 1, 52):
                        hand[4] = e
                        counts[score(hand, 5) >> 26] += 1
    return counts


def test_every_five_card_hand_counted_by_category():
    counts = _count_categories()
    assert sum(counts) == 2598960
    for category in range(10):
        assert counts[category] == FIVE_CARD_COUNTS[category], (category, counts)
