# Bit-mask hand evaluator, plain Python: the twin of eval_viper for CPython
# and for boards whose image has no native emitter.
#
# score(hand, n) ranks the best five of the first n (5..7) cards of `hand`
# (a bytes-like of card codes) as one small int: the category in bits 26..29,
# then the ranks that break ties, so equal scores are exact ties.
# It keeps rank masks of ranks seen once, twice, three and four times and the
# four suit counts packed as nibbles; it allocates nothing.
from micropython import const

_SHIFT = const(26)
_KICKER = const(13)
_ACE_HIGH_STRAIGHT = const(0x200)  # bit of the ten-to-ace run in _straight's mask
_FLUSH_TEST = const(0x3333)  # adding 3 to a nibble of 5..7 sets its top bit
_FLUSH_BITS = const(0x8888)


def _popcount13(m):
    m = m - ((m >> 1) & 0x5555)
    m = (m & 0x3333) + ((m >> 2) & 0x3333)
    m = (m + (m >> 4)) & 0x0F0F
    return (m + (m >> 8)) & 0x1F


def _top(m, k):
    # The k highest ranks of mask m.
    n = _popcount13(m)
    while n > k:
        m &= m - 1
        n -= 1
    return m


def _straight(m):
    # Bit i set means a run of five starting at rank i - 1 (bit 0: the wheel).
    m = (m << 1) | (m >> 12)
    s = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4)
    while s & (s - 1):
        s &= s - 1
    return s


def _flush(hand, n, flush_bits):
    # In seven cards or fewer a flush excludes quads and a full house.
    suit = 0
    while not flush_bits & (8 << (suit << 2)):
        suit += 1
    ranks = 0
    for i in range(n):
        c = hand[i]
        if c & 3 == suit:
            ranks |= 1 << (c >> 2)
    run = _straight(ranks)
    if run == _ACE_HIGH_STRAIGHT:
        return (9 << _SHIFT) | run
    if run:
        return (8 << _SHIFT) | run
    return (5 << _SHIFT) | _top(ranks, 5)


def score(hand, n):
    one = two = three = four = suits = 0
    for i in range(n):
        c = hand[i]
        r = 1 << (c >> 2)
        four |= three & r
        three |= two & r
        two |= one & r
        one |= r
        suits += 1 << ((c & 3) << 2)
    flush_bits = (suits + _FLUSH_TEST) & _FLUSH_BITS
    if flush_bits:
        return _flush(hand, n, flush_bits)
    if four:
        return (7 << _SHIFT) | (four << _KICKER) | _top(one & ~four, 1)
    if three:
        trips = _top(three, 1)
        pair = two & ~trips
        if pair:
            return (6 << _SHIFT) | (trips << _KICKER) | _top(pair, 1)
    run = _straight(one)
    if run:
        return (4 << _SHIFT) | run
    if three:
        return (3 << _SHIFT) | (trips << _KICKER) | _top(one & ~trips, 2)
    if two:
        pairs = _top(two, 2)
        if pairs & (pairs - 1):
            return (2 << _SHIFT) | (pairs << _KICKER) | _top(one & ~pairs, 1)
        return (1 << _SHIFT) | (pairs << _KICKER) | _top(one & ~pairs, 3)
    return _top(one, 5)
