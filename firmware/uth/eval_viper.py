# Bit-mask hand evaluator compiled by MicroPython's viper emitter: the same
# algorithm and the same scores as eval_plain, inlined into one function
# because viper-to-viper calls box their arguments. Machine-word ints only,
# so it allocates nothing. The tests check it against eval_plain hand by hand.
#
# The viper code is compiled on the board when this module loads, not by
# mpy-cross: viper in a .mpy is tied to one CPU (-march), while this way the
# module precompiles with a plain mpy-cross and one build serves every board
# whose firmware has the native emitter (evaluator.py falls back to
# eval_plain where it has not). Compiling costs a few KB of heap, once.
import micropython

_SOURCE = """
@micropython.viper
def score(hand: ptr8, n: int) -> int:
    one = 0
    two = 0
    three = 0
    four = 0
    suits = 0
    i = 0
    while i < n:
        c = hand[i]
        r = 1 << (c >> 2)
        four |= three & r
        three |= two & r
        two |= one & r
        one |= r
        suits += 1 << ((c & 3) << 2)
        i += 1
    flush_bits = (suits + 0x3333) & 0x8888
    if flush_bits:
        suit = 0
        while not flush_bits & (8 << (suit << 2)):
            suit += 1
        ranks = 0
        i = 0
        while i < n:
            c = hand[i]
            if c & 3 == suit:
                ranks |= 1 << (c >> 2)
            i += 1
        m = (ranks << 1) | (ranks >> 12)
        run = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4)
        while run & (run - 1):
            run &= run - 1
        if run == 0x200:
            return (9 << 26) | run
        if run:
            return (8 << 26) | run
        m = ranks
        count = 0
        while m:
            m &= m - 1
            count += 1
        while count > 5:
            ranks &= ranks - 1
            count -= 1
        return (5 << 26) | ranks
    # Number of distinct ranks, for trimming kickers from the bottom.
    distinct = 0
    m = one
    while m:
        m &= m - 1
        distinct += 1
    if four:
        # Clearing the lowest bit until none is left passes the highest last.
        rest = one & ~four
        high = 0
        while rest:
            high = rest
            rest &= rest - 1
        return (7 << 26) | (four << 13) | high
    trips = 0
    if three:
        m = three
        while m:
            trips = m
            m &= m - 1
        pair = two & ~trips
        if pair:
            high = 0
            while pair:
                high = pair
                pair &= pair - 1
            return (6 << 26) | (trips << 13) | high
    m = (one << 1) | (one >> 12)
    run = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4)
    if run:
        while run & (run - 1):
            run &= run - 1
        return (4 << 26) | run
    if trips:
        kickers = one & ~trips
        count = distinct - 1
        while count > 2:
            kickers &= kickers - 1
            count -= 1
        return (3 << 26) | (trips << 13) | kickers
    if two:
        pairs = two
        count = 0
        m = two
        while m:
            m &= m - 1
            count += 1
        while count > 2:
            pairs &= pairs - 1
            count -= 1
        kickers = one & ~pairs
        if pairs & (pairs - 1):
            count = distinct - 2
            while count > 1:
                kickers &= kickers - 1
                count -= 1
            return (2 << 26) | (pairs << 13) | kickers
        count = distinct - 1
        while count > 3:
            kickers &= kickers - 1
            count -= 1
        return (1 << 26) | (pairs << 13) | kickers
    while distinct > 5:
        one &= one - 1
        distinct -= 1
    return one
"""

_namespace = {"micropython": micropython}
exec(_SOURCE, _namespace)
score = _namespace["score"]
del _namespace
