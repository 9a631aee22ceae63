# MicroPython side of the evaluator benchmark (run by bench/run.py on the unix port).
# Usage: MICROPYPATH=firmware micropython bench/mp_eval.py HANDS_FILE REPEATS SCORES_OUT
# HANDS_FILE holds 7 bytes (card codes) per hand, written by run.py so that every
# contender scores the very same hands. Prints one JSON line with the timings;
# writes the scores of both evaluators to SCORES_OUT for run.py's order check.
import gc
import json
import sys
import time

from uth import eval_plain, evaluator

HAND_SIZE = 7


def load_hands(path):
    # Prepared before any timing: a list of 7-byte bytes objects, as the board would hold.
    with open(path, "rb") as f:
        data = f.read()
    return [data[i:i + HAND_SIZE] for i in range(0, len(data), HAND_SIZE)]


def time_pass(score, hands):
    # One pass over every hand, loop overhead included; `score` is a local for speed,
    # as it is in the CPython twin of this loop.
    gc.collect()  # start each pass from the same heap state
    start = time.ticks_us()
    for h in hands:
        score(h, 7)
    return time.ticks_diff(time.ticks_us(), start)


def best_us(score, hands, repeats):
    return min([time_pass(score, hands) for _ in range(repeats)])


def version():
    # "1.29.0-preview (9458e3a23f on 2026-07-05)": release, then the build sys.version names.
    v = sys.implementation.version
    release = "%d.%d.%d" % v[:3] + ("-" + v[3] if len(v) > 3 and v[3] else "")
    return "%s (%s)" % (release, sys.version.split("MicroPython ")[-1])


def main():
    hands_path, repeats, scores_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    hands = load_hands(hands_path)
    viper, plain = evaluator.score, eval_plain.score
    # Scores outside the timed passes: they feed the order-agreement check.
    with open(scores_path, "w") as f:
        json.dump({"viper": [viper(h, 7) for h in hands],
                   "plain": [plain(h, 7) for h in hands]}, f)
    gc.collect()
    result = {
        "kind": evaluator.KIND,  # "viper" unless the port lacks the native emitter
        "hands": len(hands),
        "viper_us": best_us(viper, hands, repeats),
        "plain_us": best_us(plain, hands, repeats),
        "version": version(),
    }
    print(json.dumps(result))


main()
