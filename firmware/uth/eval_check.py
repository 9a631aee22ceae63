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
from .cards import parse_cards

KNOWN = (
    ("As Ks Qs Js Ts 2c 3d", (9 << 26) | (1 << 9)),  # royal flush: the run from the ten
    ("9h 8h 7h 6h 5h Kc Kd", (8 << 26) | (1 << 4)),  # nine-high straight flush
    ("Ad Ac As Ah 9d 9c 2s", (7 << 26) | (1 << 12 << 13) | (1 << 7)),  # aces, nine kicker
    ("Kh Kd Kc 7s 7h 7d 2c", (6 << 26) | (1 << 11 << 13) | (1 << 5)),  # kings full of sevens
    ("5c 5d 5h Ts Td 2c", (6 << 26) | (1 << 3 << 13) | (1 << 8)),  # fives full of tens
    ("2h 5h 7h 9h Jh Qh Ad", (5 << 26) | (1 << 10) | (1 << 9) | (1 << 7) | (1 << 5) | (1 << 3)),
    ("As 2d 3c 4h 5s 9c 9d", (4 << 26) | 1),  # the wheel, over a pair of nines
    ("Qc Qd Qs 8h 6d 4c 3s", (3 << 26) | (1 << 10 << 13) | (1 << 6) | (1 << 4)),
    ("Jc Jd 4h 4s 9c 9s Ah", (2 << 26) | (((1 << 9) | (1 << 7)) << 13) | (1 << 12)),
    ("Ac Ad 3h 3s Kc", (2 << 26) | (((1 << 12) | (1 << 1)) << 13) | (1 << 11)),
    ("Tc Td 8h 6s 4c", (1 << 26) | (1 << 8 << 13) | (1 << 6) | (1 << 4) | (1 << 2)),
    ("Kc 9d 7h 5s 3c 2d", (1 << 11) | (1 << 7) | (1 << 5) | (1 << 3) | (1 << 1)),
)


def scores_known_hands(score):
    # True when score(hand, n) gives every known hand its score; False when it
    # gives one another or fails in any way.
    try:
        for cards, expected in KNOWN:
            hand = bytes(parse_cards(cards))
            if score(hand, len(hand)) != expected:
                return False
    except Exception:  # noqa: BLE001 -- any failure disqualifies the candidate
        return False
    return True
