# Figures on the emulated ESP32's clock (docs/benchmarks.md, "The emulated
# ESP32"): the uth viper and plain evaluators over 2,000 seven-card hands made on
# the chip (a fixed LCG, so every run scores the same hands), best of seven
# passes timed with ticks_us, from the .mpy build on its flash. QEMU runs the
# image at the speed the host gives it and times it by the host's clock (no
# instruction counting): these are QEMU's figures on this host, not the chip's.
#   python bench/esp32_bench.py
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from esp32_census import at_repl  # noqa: E402

EVAL = """
import gc, json, time
from uth import eval_plain, evaluator

def hands(count):
    state = 12345
    out = []
    for _ in range(count):
        deck = list(range(52))
        hand = bytearray(7)
        for i in range(7):
            state = (state * 1103515245 + 12345) & 0x7FFFFFFF
            j = i + state % (52 - i)
            deck[i], deck[j] = deck[j], deck[i]
            hand[i] = deck[i]
        out.append(bytes(hand))
    return out

def best(score, hs, repeats):
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.ticks_us()
        for h in hs:
            score(h, 7)
        times.append(time.ticks_diff(time.ticks_us(), start))
    return min(times)

hs = hands(2000)
n = len(hs)
p = best(eval_plain.score, hs, 7)
figures = {"kind": evaluator.KIND, "hands": n, "plain_us": p,
           "plain_hands_s": round(n * 1e6 / p)}
gc.collect()
figures["free_before_viper"] = gc.mem_free()
try:
    figures["agree"] = all(evaluator.score(h, 7) == eval_plain.score(h, 7) for h in hs[:200])
    v = best(evaluator.score, hs, 7)
    figures.update(viper_us=v, viper_hands_s=round(n * 1e6 / v))
except MemoryError as error:
    figures["viper_error"] = "MemoryError: %s" % error
print(json.dumps(figures))
"""
SPIN = """
import time, json
start = time.ticks_ms()
for i in range(100000):
    pass
print(json.dumps({"loop_100k_ms": time.ticks_diff(time.ticks_ms(), start)}))
"""


def main():
    print(json.dumps(at_repl([("loop", SPIN, 3), ("evaluator", EVAL, 3)])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
