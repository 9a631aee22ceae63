# Hand categories, weakest first: a score's top bits are the index here.
from micropython import const

CATEGORY_SHIFT = const(26)
# Below the category: the ranks that decide first (a pair's rank, the trips of
# a full house) as a 13-bit mask, then the kickers in the low 13 bits.
PRIMARY_SHIFT = const(13)
RANK_MASK = const(0x1FFF)

HIGH_CARD = const(0)
PAIR = const(1)
TWO_PAIR = const(2)
THREE_OF_A_KIND = const(3)
STRAIGHT = const(4)
FLUSH = const(5)
FULL_HOUSE = const(6)
FOUR_OF_A_KIND = const(7)
STRAIGHT_FLUSH = const(8)
ROYAL_FLUSH = const(9)

NAMES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)


def category_of(score):
    return score >> CATEGORY_SHIFT


def category_name(score):
    return NAMES[score >> CATEGORY_SHIFT]


def category_index(name):
    # Raises ValueError naming the category when it is not one of NAMES.
    for index in range(len(NAMES)):
        if NAMES[index] == name:
            return index
    raise ValueError("unknown category %r" % (name,))


def primary_ranks(score):
    # Rank mask of the pair(s), trips or quads that decide a hand; 0 for hands
    # decided by all five ranks (high card, straight, flush).
    return (score >> PRIMARY_SHIFT) & RANK_MASK
