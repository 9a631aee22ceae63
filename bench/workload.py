# What the evaluator and settlement benchmarks measure, the same for every
# contender: seeded random hands and one six-seat round to settle (run.py on
# the host's MicroPython and CPython, pico_bench.py on the emulated Pico).
import random

SETTLE_ROUND = {
    "paytables": {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"},
    "dealer": ["Ah", "Ad"],
    "board": ["2c", "7d", "9h", "Js", "Kc"],
    "seats": [
        {"seat": number, "cards": cards, "folded": False,
         "wagers": {"trips": 500, "bad_beat": 500, "play_the_board": 500,
                    "ultimate_pairs": 500}}
        for number, cards in enumerate(
            (["As", "Ac"], ["Kd", "Kh"], ["Qc", "Jd"], ["Th", "8h"], ["3s", "4s"],
             ["Qh", "Qs"]), start=1)
    ],
}


def make_hands(count, seed):
    # Seven distinct cards per hand; the first two are the hole cards, the last five
    # the board (that split only matters to treys' call shape).
    rng = random.Random(seed)
    return [bytes(rng.sample(range(52), 7)) for _ in range(count)]
