# Hand evaluator compiled by MicroPython's viper emitter: the same scores as
# eval_plain (whose header gives the score layout), one function because
# viper-to-viper calls box their arguments. Machine-word ints and a table made
# once at import, so an evaluation allocates nothing. The tests check it
# against eval_plain hand by hand.
#
# The viper code is compiled on the board when this module loads, not by
# mpy-cross: viper in a .mpy is tied to one CPU (-march), while this way the
# module precompiles with a plain mpy-cross and one build serves every board
# whose firmware has the native emitter (evaluator.py falls back to
# eval_plain where it has not). Compiling costs a few KB of heap, once.
#
# Shaped for the emitter, whose code for the RP2040's Cortex-M0+ this follows:
# - It keeps the first three locals in registers (the two arguments, then the
#   first local assigned) and every other local in a stack slot, each use of
#   which costs a load, a store and register moves. So `v`, the value every
#   card and test passes through, is that third local; `n` is read once into
#   `extra` and its register then holds the table's address, then the ranks.
# - Each card is one table load and three one-operation updates: OR (ranks
#   present), XOR (ranks seen an odd number of times) and ADD (suit counters
#   and the sum of rank bits); the counts per rank follow from those three
#   words after the cards (see below), where the ladder of masks seen once,
#   twice, three and four times cost seven operations a card.
# - The five to seven cards are unrolled: a card index that is a constant
#   loads in one instruction.
# - Comparisons cost a materialized boolean; tests are on truth where they can be.
# - `~` is not used: in this firmware (v1.28) `~x` on a register-held local
#   inverts the local itself (micropython/micropython#14397). `a & ~b` is
#   written `a ^ b` wherever b's bits are a subset of a's.
import array

import micropython
import uctypes


def _card_bits(code):
    # Card code rank * 4 + suit: the rank's bit at 16 + rank, for the OR, XOR
    # and the rank sum; one in the suit's nibble of bits 0..15, for the counters.
    return (1 << (16 + (code >> 2))) | (1 << ((code & 3) << 2))


_CARDS = array.array("I", [_card_bits(code) for code in range(52)])  # 208 bytes
_ADDRESS = uctypes.addressof(_CARDS)

# The table's address goes into the source as a constant: a global or an
# argument would cost a lookup and a buffer conversion each call. The table
# stays referenced here and MicroPython's heap never moves an object. A constant
# past the small ints (2**30 on 32-bit boards) would compile as an object, so
# such an address is put together from two halves.
if _ADDRESS < 0x40000000:
    _ADDRESS_CODE = "%d" % _ADDRESS
else:
    _ADDRESS_CODE = "(%d << 15) | %d" % (_ADDRESS >> 15, _ADDRESS & 0x7FFF)

# After the cards, with c the count of a rank (0..4):
#   ranks = OR >> 16          ranks with c >= 1
#   odd = XOR >> 16           ranks with c odd (1 or 3)
#   pairs = ranks ^ odd       ranks with c even (2 or 4)
#   sum = ADD >> 16           the sum of c << rank, below 2**15 for seven cards
# sum - odd - 2 * pairs is the sum of (c - 1 or c - 2) << rank over the ranks,
# 2 << rank for each rank with c of 3 or 4 and 0 for the others; halved, it is
# `up`, the mask of ranks seen three or four times. Then quads are up & pairs.
# Suit counters: adding 3 to a nibble of 5..7 sets its top bit (a flush).
_SOURCE = """
@micropython.viper
def score(hand: ptr8, n: int) -> int:
    v = 0
    extra = n - 5
    n = %s
    v = ptr32(n)[hand[0]]
    one = v
    odd = v
    acc = v
    v = ptr32(n)[hand[1]]
    one |= v
    odd ^= v
    acc += v
    v = ptr32(n)[hand[2]]
    one |= v
    odd ^= v
    acc += v
    v = ptr32(n)[hand[3]]
    one |= v
    odd ^= v
    acc += v
    v = ptr32(n)[hand[4]]
    one |= v
    odd ^= v
    acc += v
    if extra:
        v = ptr32(n)[hand[5]]
        one |= v
        odd ^= v
        acc += v
        if extra - 1:
            v = ptr32(n)[hand[6]]
            one |= v
            odd ^= v
            acc += v
    v = (acc + 0x3333) & 0x8888
    if v:
        # A flush; in seven cards or fewer it excludes quads and a full house.
        suit = 0
        while not v & (8 << (suit << 2)):
            suit += 1
        ranks = 0
        i = 0
        while i < extra + 5:
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
        # Keep the five highest: drop the lowest while the suit has more.
        count = ((acc >> (suit << 2)) & 15) - 5
        while count:
            ranks &= ranks - 1
            count -= 1
        return (5 << 26) | ranks
    n = one >> 16
    v = odd >> 16
    pairs = n ^ v
    up = ((acc >> 16) - v - pairs - pairs) >> 1
    # A straight needs five distinct ranks, quads or a full house leave at most
    # four of seven cards, so it is tested first. Bit i of v: a run of five
    # from rank i - 1 (bit 0: the wheel, the ace below the deuce).
    v = (n << 1) | (n >> 12)
    v &= v >> 1
    v = v & (v >> 2) & (n >> 3)
    if v:
        while v & (v - 1):
            v &= v - 1
        return (4 << 26) | v
    if up:
        v = up & pairs
        if v:
            # Quads and the highest other rank; clearing the lowest bit until
            # none is left passes the highest last.
            up = n ^ v
            while up & (up - 1):
                up &= up - 1
            return (7 << 26) | (v << 13) | up
        # Two ranks seen three times (six of seven cards): the lower plays as the pair.
        v = up & (up - 1)
        if v:
            return (6 << 26) | (v << 13) | (up ^ v)
        if pairs:
            while pairs & (pairs - 1):
                pairs &= pairs - 1
            return (6 << 26) | (up << 13) | pairs
        # Trips and two kickers: of k cards, k - 3 other ranks, the lowest k - 5 dropped.
        n ^= up
        if extra:
            n &= n - 1
            if extra - 1:
                n &= n - 1
        return (3 << 26) | (up << 13) | n
    if pairs:
        v = pairs & (pairs - 1)
        if v:
            if v & (v - 1):
                # Three pairs (six or seven cards): the two highest play, the
                # third pair's rank is among the kickers, and one of two
                # kickers is dropped with seven cards.
                n ^= v
                if extra - 1:
                    n &= n - 1
                return (2 << 26) | (v << 13) | n
            # Two pairs and one kicker: k - 4 other ranks, the lowest k - 5 dropped.
            n ^= pairs
            if extra:
                n &= n - 1
                if extra - 1:
                    n &= n - 1
            return (2 << 26) | (pairs << 13) | n
        # One pair and three kickers: k - 2 other ranks, the lowest k - 5 dropped.
        n ^= pairs
        if extra:
            n &= n - 1
            if extra - 1:
                n &= n - 1
        return (1 << 26) | (pairs << 13) | n
    # High card: the five highest of k ranks.
    if extra:
        n &= n - 1
        if extra - 1:
            n &= n - 1
    return n
""" % _ADDRESS_CODE

_namespace = {"micropython": micropython}
exec(_SOURCE, _namespace)
score = _namespace["score"]
del _namespace
