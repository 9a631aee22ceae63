# Hands whose scores are known from the ranking of 653a.6, written out by hand
# in the score layout of eval_plain's header (category << 26, the deciding
# ranks' mask << 13, the kickers' mask; a straight's low bits are the bit of
# its run, bit i the run from rank i - 1, bit 0 the wheel), ranks 0 = deuce
# .. 12 = ace. evaluator.py uses a native evaluator only once it has scored
# them all right: a native build can load and still fail when it runs (a
# port's allocation for native code refused, a CPU its code was not shaped
# for), and a settlement must then be done by the plain twin, not fail or pay
# wrong. Between them they take every branch of the score (flush, straight,
# quads, two trips, trips, three pairs, pair, high card) and 5, 6 and 7 cards.
# Each hand is its cards' names and their codes (rank * 4 + suit, uth/cards.py),
# the codes written out so the check parses nothing (the tests parse the names).
KNOWN = (
    ("As Ks Qs Js Ts 2c 3d", b"\x33\x2f\x2b\x27\x23\x00\x05",
     (9 << 26) | (1 << 9)),  # royal flush: the run from the ten
    ("9h 8h 7h 6h 5h Kc Kd", b"\x1e\x1a\x16\x12\x0e\x2c\x2d",
     (8 << 26) | (1 << 4)),  # nine-high straight flush
    ("Ad Ac As Ah 9d 9c 2s", b"\x31\x30\x33\x32\x1d\x1c\x03",
     (7 << 26) | (1 << 12 << 13) | (1 << 7)),  # aces, nine kicker
    ("Kh Kd Kc 7s 7h 7d 2c", b"\x2e\x2d\x2c\x17\x16\x15\x00",
     (6 << 26) | (1 << 11 << 13) | (1 << 5)),  # kings full of sevens
    ("5c 5d 5h Ts Td 2c", b"\x0c\x0d\x0e\x23\x21\x00",
     (6 << 26) | (1 << 3 << 13) | (1 << 8)),  # fives full of tens
    ("2h 5h 7h 9h Jh Qh Ad", b"\x02\x0e\x16\x1e\x26\x2a\x31",
     (5 << 26) | (1 << 10) | (1 << 9) | (1 << 7) | (1 << 5) | (1 << 3)),
    ("As 2d 3c 4h 5s 9c 9d", b"\x33\x01\x04\x0a\x0f\x1c\x1d",
     (4 << 26) | 1),  # the wheel, over a pair of nines
    ("Qc Qd Qs 8h 6d 4c 3s", b"\x28\x29\x2b\x1a\x11\x08\x07",
     (3 << 26) | (1 << 10 << 13) | (1 << 6) | (1 << 4)),
    ("Jc Jd 4h 4s 9c 9s Ah", b"\x24\x25\x0a\x0b\x1c\x1f\x32",
     (2 << 26) | (((1 << 9) | (1 << 7)) << 13) | (1 << 12)),
    ("Ac Ad 3h 3s Kc", b"\x30\x31\x06\x07\x2c",
     (2 << 26) | (((1 << 12) | (1 << 1)) << 13) | (1 << 11)),
    ("Tc Td 8h 6s 4c", b"\x20\x21\x1a\x13\x08",
     (1 << 26) | (1 << 8 << 13) | (1 << 6) | (1 << 4) | (1 << 2)),
    ("Kc 9d 7h 5s 3c 2d", b"\x2c\x1d\x16\x0f\x04\x01",
     (1 << 11) | (1 << 7) | (1 << 5) | (1 << 3) | (1 << 1)),
)


def scores_known_hands(score):
    # True when score(hand, n) gives every known hand its score; False when it
    # gives one another or fails in any way.
    try:
        for _, hand, expected in KNOWN:
            if score(hand, len(hand)) != expected:
                return False
    except Exception:  # noqa: BLE001 -- any failure disqualifies the candidate
        return False
    return True
