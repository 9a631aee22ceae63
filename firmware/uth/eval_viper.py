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
# Shaped for the code the emitter makes for the RP2040's Cortex-M0+:
# - The first three locals live in registers (the two arguments, then the first
#   local assigned), every other local in a stack slot that each use loads and
#   stores. So `v`, which every card and test passes through, is that third
#   local; `n` is read once into `short` and its register then holds the
#   table's address, later the ranks present.
# - A binary operation takes its left operand into a scratch register and
#   reads its right one where it is; so a register local or a constant goes on
#   the right (`(v >> 1) & v`, not `v & (v >> 1)`), and a sub-expression on the
#   right, which spills the left one to the stack, is avoided.
# - Each card is one table load and three one-operation updates: OR (ranks
#   present), XOR (ranks seen an odd number of times) and ADD (suit counters
#   and the sum of rank bits). The counts per rank follow from those three
#   words (below), where a ladder of masks seen once, twice, three and four
#   times would take seven operations a card.
# - The cards are unrolled: a constant index loads in one instruction.
# - Comparisons cost a materialized boolean and a second test; tests are on
#   truth where they can be, and seven cards, the usual case, pass one test.
# - `~` is not used: in this firmware (v1.28) `~x` on a register-held local
#   inverts the local itself (micropython/micropython#14397). `a & ~b` is
#   written `a ^ b` wherever b's bits are a subset of a's.
# Its speed on the emulated Pico, and what of it the call costs, is in
# docs/benchmarks.md.
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
# past the small ints (2**30 on 32-bit boards) would compile as an object, even
# as an expression of small ones, which the compiler folds; so such an address
# is put together from two halves in two statements, in machine words.
if _ADDRESS < 0x40000000:
    _ADDRESS_CODE = "n = %d" % _ADDRESS
else:
    _ADDRESS_CODE = "n = %d\n    n = (n << 15) | %d" % (_ADDRESS >> 15, _ADDRESS & 0x7FFF)

# After the cards, with c the count of a rank (0..4):
#   n = OR >> 16              ranks with c >= 1
#   odd = XOR >> 16           ranks with c odd (1 or 3)
#   pairs = n ^ odd           ranks with c even (2 or 4)
#   sum = ADD >> 16           the sum of c << rank, below 2**15 for seven cards
# sum - n - pairs is the sum over the ranks of (c - 1 if c is odd, c - 2 if
# even) << rank: 2 << rank for each rank with c of 3 or 4, 0 for the others.
# So it is nonzero when some rank is seen three or four times and, halved, it
# is the mask `up` of those ranks. Quads
# are up & pairs. Suit counters: adding 3 to a nibble of 5..7 sets its top bit.
_SOURCE = """
@micropython.viper
def score(hand: ptr8, n: int) -> int:
    v = 0
    short = 7 - n
    %s
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
    if short:
        if short - 2:
            v = ptr32(n)[hand[5]]
            one |= v
            odd ^= v
            acc += v
    else:
        v = ptr32(n)[hand[5]]
        one |= v
        odd ^= v
        acc += v
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
        while i < 7 - short:
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
    # A straight needs five distinct ranks, quads or a full house leave at most
    # four of seven cards, so it is tested before the counts. Bit i of v: a run
    # of five from rank i - 1 (bit 0: the wheel, the ace below the deuce).
    v = (n >> 12) + n + n
    v = (v >> 1) & v
    v = (v >> 2) & v
    v = (n >> 3) & v
    if v:
        # Clearing the lowest bit until one is left keeps the highest.
        while (v - 1) & v:
            v = (v - 1) & v
        return v | (4 << 26)
    v = (odd >> 16) ^ n
    if (acc >> 16) - n - v:
        up = ((acc >> 16) - n - v) >> 1
        odd = up & v
        if odd:
            # Quads and the highest other rank.
            up = n ^ odd
            while up & (up - 1):
                up &= up - 1
            return (odd << 13) | up | (7 << 26)
        # Two ranks seen three times (six of seven cards): the lower plays as the pair.
        odd = up & (up - 1)
        if odd:
            return (odd << 13) | (up ^ odd) | (6 << 26)
        if v:
            while (v - 1) & v:
                v = (v - 1) & v
            return (up << 13) | v | (6 << 26)
        # Trips and two kickers: of k cards, k - 3 other ranks, the lowest k - 5 dropped.
        n ^= up
        if short:
            if short - 2:
                n = (n - 1) & n
        else:
            n = (n - 1) & n
            n = (n - 1) & n
        return (up << 13) | n | (3 << 26)
    if v:
        if (v - 1) & v:
            up = (v - 1) & v
            if (up - 1) & up:
                # Three pairs (six or seven cards): the two highest play, the
                # third pair's rank is among the kickers, of which seven cards
                # leave two and one is dropped.
                n ^= up
                if not short:
                    n = (n - 1) & n
                return (up << 13) | n | (2 << 26)
            # Two pairs and one kicker: k - 4 other ranks, the lowest k - 5 dropped.
            n ^= v
            if short:
                if short - 2:
                    n = (n - 1) & n
            else:
                n = (n - 1) & n
                n = (n - 1) & n
            return (v << 13) | n | (2 << 26)
        # One pair and three kickers: k - 2 other ranks, the lowest k - 5 dropped.
        n ^= v
        if short:
            if short - 2:
                n = (n - 1) & n
        else:
            n = (n - 1) & n
            n = (n - 1) & n
        return (v << 13) | n | (1 << 26)
    # High card: the five highest of k ranks.
    if short:
        if short - 2:
            n = (n - 1) & n
    else:
        n = (n - 1) & n
        n = (n - 1) & n
    return n
""" % _ADDRESS_CODE

_namespace = {"micropython": micropython}
exec(_SOURCE, _namespace)
score = _namespace["score"]
# The source is no longer needed, and kept it would hold its text's heap for good.
del _namespace, _SOURCE, _ADDRESS_CODE
