# The benchmark behind `make bench`: best-of-seven hand evaluation (uth on the
# MicroPython unix port and on CPython, treys on CPython) and settling a six-seat
# round on the unix port, all in one run; then the time from LOCK to the committed
# contributions on the virtual board (vboard_lock.py) and how soon the host link
# answers a silent port and a board at its REPL (link_answers.py); then the same
# figures and the flash's wear on the emulated Pico's own clock (pico_bench.py),
# when it is installed, and the project's image beside the official one
# (image_compare.py); then the emulated ESP32's (esp32_bench.py, esp32_lock.py),
# when its kit is here.
# Usage: .venv/bin/python bench/run.py [--hands N] [--repeats R] [--json FILE]
# Figures are reported, never asserted: a slow machine is not a failed build.
import argparse
import gc
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from importlib import metadata

import esp32_bench  # bench/, beside this script
import esp32_lock
import heap_report
import image_compare
import link_answers
import pico_bench
import vboard_lock
from workload import SETTLE_ROUND, make_hands

from uthctl.boards import heaps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")

# The evaluator run holds N prepared hands (about 50 bytes each on the heap, more with
# the list's growth), more than a board keeps, so its heap grows with N; settling runs
# at the Pico's heap (its board file's HEAP_BYTES, uthctl/boards/heaps.py) so that its
# garbage collections are the board's.
EVAL_HEAP_BASE_K = 4096
EVAL_HEAP_PER_HAND = 256
SETTLE_HEAP = heaps.heapsize(heaps.budget("rp2040_pico"))
BUDGET_HANDS_PER_S = 1_000_000
BUDGET_SETTLE_US = 500

def parse_args():
    parser = argparse.ArgumentParser(description="uth evaluator and settle benchmark")
    parser.add_argument("--hands", type=int, default=20_000, help="random 7-card hands")
    parser.add_argument("--seed", type=int, default=653, help="seed of the hand generator")
    parser.add_argument("--repeats", type=int, default=5, help="passes; the best one counts")
    parser.add_argument("--pairs", type=int, default=100_000, help="pairs for the order check")
    parser.add_argument("--settle-calls", type=int, default=1_000, help="calls per repeat")
    parser.add_argument("--lock-rounds", type=int, default=30,
                        help="rounds timed from LOCK on the virtual board")
    parser.add_argument("--link-runs", type=int, default=5,
                        help="runs of each host-link answer (link_answers.py)")
    parser.add_argument("--pico-hands", type=int, default=2_000,
                        help="the first N of the hands, scored on the emulated Pico")
    parser.add_argument("--wear-rounds", type=int, default=1_000,
                        help="rounds of the emulated Pico's wear run")
    parser.add_argument("--no-pico", action="store_true", help="skip the emulated Pico")
    parser.add_argument("--no-esp32", action="store_true", help="skip the emulated ESP32")
    parser.add_argument("--esp32-lock-rounds", type=int, default=5,
                        help="LOCK rounds on the emulated ESP32")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    return parser.parse_args()


# -- hands ---------------------------------------------------------------------------------

def write_hands(hands, path):
    # MicroPython reads this very file, so every contender scores the same hands.
    with open(path, "wb") as f:
        f.write(b"".join(hands))


# -- MicroPython contenders ---------------------------------------------------------------

def run_micropython(script, args, heap):
    env = dict(os.environ, MICROPYPATH="firmware")
    command = [MICROPYTHON, "-X", "heapsize=" + heap, os.path.join(BENCH, script)] + args
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("%s failed:\n%s%s" % (script, done.stdout, done.stderr))
    return json.loads(done.stdout.strip().splitlines()[-1])


def eval_heap(hands):
    return "%dK" % (EVAL_HEAP_BASE_K + hands * EVAL_HEAP_PER_HAND // 1024)


def bench_micropython(hands_path, scores_path, hands, repeats):
    args = [hands_path, str(repeats), scores_path]
    timing = run_micropython("mp_eval.py", args, eval_heap(hands))
    with open(scores_path) as f:
        scores = json.load(f)
    return timing, scores


# -- CPython contenders --------------------------------------------------------------------

def load_uth_plain():
    # uthctl stands in for the `micropython` module that the firmware imports; it has
    # to go in before `uth`, hence the import here rather than at the top.
    from uthctl import mpshim

    mpshim.install()
    from uth import eval_plain

    return eval_plain.score


def time_uth_pass(score, hands):
    gc.collect()  # start each pass from the same heap state, as on MicroPython
    start = time.perf_counter()
    for h in hands:
        score(h, 7)
    return time.perf_counter() - start


def treys_cards(hands):
    # treys' own card ints, built before timing: (board5, hand2) lists per hand.
    from treys import Card

    from uth.cards import card_name  # "As", "Td": the notation treys' Card.new reads

    prepared = []
    for h in hands:
        cards = [Card.new(card_name(code)) for code in h]
        prepared.append((cards[2:], cards[:2]))
    return prepared


def time_treys_pass(evaluate, prepared):
    gc.collect()
    start = time.perf_counter()
    # treys concatenates its two arguments, so board-first or hand-first is the same work.
    for board5, hand2 in prepared:
        evaluate(board5, hand2)
    return time.perf_counter() - start


def best_seconds(time_pass, evaluate, items, repeats):
    return min(time_pass(evaluate, items) for _ in range(repeats))


def bench_cpython(hands, repeats):
    from treys import Evaluator

    plain = load_uth_plain()
    evaluate = Evaluator().evaluate  # bound once, as `score` is a plain name for uth
    prepared = treys_cards(hands)
    return {
        "plain_s": best_seconds(time_uth_pass, plain, hands, repeats),
        "treys_s": best_seconds(time_treys_pass, evaluate, prepared, repeats),
        "plain_scores": [plain(h, 7) for h in hands],
        "treys_ranks": [evaluate(board5, hand2) for board5, hand2 in prepared],
    }


# -- equivalence of the work ---------------------------------------------------------------

def sign(x):
    return (x > 0) - (x < 0)


def order_agreement(uth_scores, treys_ranks, pairs):
    # A pair agrees when both put the same hand ahead, or both call it a tie;
    # uth is higher-is-better, treys lower-is-better.
    return sum(sign(uth_scores[i] - uth_scores[j]) == sign(treys_ranks[j] - treys_ranks[i])
               for i, j in pairs)


def full_order_consistent(uth_scores, treys_ranks):
    # Every pair of the N hands at once: sorted by uth score, treys' rank must fall
    # exactly when the uth score rises and stay put on uth ties.
    ordered = sorted(zip(uth_scores, treys_ranks, strict=True))
    for (s0, r0), (s1, r1) in itertools.pairwise(ordered):
        if (s0 == s1) != (r0 == r1) or (s0 < s1 and r0 <= r1):
            return False
    return True


def sample_pairs(count, n, seed):
    # Two different hands per pair: a hand against itself would agree for free.
    rng = random.Random(seed + 1)
    return [tuple(rng.sample(range(n), 2)) for _ in range(count)]


def check_order(mp_scores, cp, pairs):
    treys_ranks = cp["treys_ranks"]
    contenders = {"uth_viper_mp": mp_scores["viper"], "uth_plain_mp": mp_scores["plain"],
                  "uth_plain_cpython": cp["plain_scores"]}
    return {
        "pairs": len(pairs),
        "agree": {name: order_agreement(scores, treys_ranks, pairs)
                  for name, scores in contenders.items()},
        "ties": sum(treys_ranks[i] == treys_ranks[j] for i, j in pairs),
        "full_order_consistent": {name: full_order_consistent(scores, treys_ranks)
                                  for name, scores in contenders.items()},
        "uth_scores_identical": mp_scores["viper"] == mp_scores["plain"] == cp["plain_scores"],
    }


# -- settlement ----------------------------------------------------------------------------

def bench_settle(tmp, calls, repeats):
    round_path = os.path.join(tmp, "round.json")
    with open(round_path, "w") as f:
        json.dump(SETTLE_ROUND, f)
    # A settle that fails is a broken build, not a missing figure: it raises.
    return run_micropython("mp_settle.py", [round_path, str(calls), str(repeats)], SETTLE_HEAP)


# -- report --------------------------------------------------------------------------------

def figures(args, mp, cp, order, settle):
    n = mp["hands"]
    rates = {
        "uth_viper_mp": n * 1e6 / mp["viper_us"],
        "uth_plain_mp": n * 1e6 / mp["plain_us"],
        "uth_plain_cpython": n / cp["plain_s"],
        "treys_cpython": n / cp["treys_s"],
    }
    result = {
        "hands": n, "seed": args.seed, "repeats": args.repeats,
        "micropython": mp["version"], "micropython_evaluator": mp["kind"],
        "cpython": sys.version.split()[0], "treys": metadata.version("treys"),
        "hands_per_s": rates,
        "ratios": {
            "uth_viper_mp_over_treys_cpython": rates["uth_viper_mp"] / rates["treys_cpython"],
            "uth_plain_cpython_over_treys_cpython":
                rates["uth_plain_cpython"] / rates["treys_cpython"],
            "uth_viper_over_plain_mp": rates["uth_viper_mp"] / rates["uth_plain_mp"],
        },
        "order": order,
        "settle": settle,
    }
    settle["us_per_round"] = settle["best_us"] / settle["calls"]
    return result


def print_report(r, args):
    n, reps = r["hands"], r["repeats"]
    print("uth benchmark: best-of-seven evaluation and round settlement")
    print("  MicroPython %s, unix port" % r["micropython"])
    print("    uth.evaluator kind: %s; heap %s for evaluation, %s for settlement"
          % (r["micropython_evaluator"], eval_heap(r["hands"]), SETTLE_HEAP))
    print("  CPython %s, treys %s" % (r["cpython"], r["treys"]))
    print()
    print("Evaluation: %d random 7-card hands (seed %d; random.Random.sample on CPython,"
          % (n, r["seed"]))
    print("  written to a temp file that MicroPython reads: the same hands for everyone).")
    print("  Timed: one pass `for h in hands: score(h, 7)` over hands prepared beforehand")
    print("  (bytes objects; treys: `evaluate(board5, hand2)` on its own card ints),")
    print("  loop overhead included, best of %d passes; ticks_us on MicroPython," % reps)
    print("  perf_counter on CPython. Each hand gives one score for all 7 cards.")
    print()
    names = (("uth_viper_mp", "uth viper, MicroPython unix port"),
             ("uth_plain_mp", "uth plain, MicroPython unix port"),
             ("uth_plain_cpython", "uth plain, CPython"),
             ("treys_cpython", "treys, CPython"))
    print("  %-34s %12s %10s" % ("contender", "hands/s", "us/hand"))
    for key, label in names:
        rate = r["hands_per_s"][key]
        print("  %-34s %12s %10.3f" % (label, "{:,.0f}".format(rate), 1e6 / rate))
    print("  (budget: uth viper on the unix port >= {:,} hands/s and ahead of the best"
          .format(BUDGET_HANDS_PER_S))
    print("   pure-Python peer on CPython)")
    print()
    ratios = r["ratios"]
    print("Ratios of hands/s:")
    print("  uth viper (MicroPython) / treys (CPython)    %8.2f x"
          % ratios["uth_viper_mp_over_treys_cpython"])
    print("  uth plain (CPython)     / treys (CPython)    %8.2f x"
          % ratios["uth_plain_cpython_over_treys_cpython"])
    print("  uth viper / uth plain   (both MicroPython)   %8.2f x"
          % ratios["uth_viper_over_plain_mp"])
    print()
    print_order(r["order"])
    print()
    print_settle(r["settle"], args)


def print_order(order):
    pairs = order["pairs"]
    print("Same work: order of hands against treys (uth higher is better, treys lower),")
    print("  %d random pairs of the hands, %d of them ties:" % (pairs, order["ties"]))
    for name, agree in order["agree"].items():
        full = "consistent" if order["full_order_consistent"][name] else "INCONSISTENT"
        print("  %-20s %d / %d pairs agree; order over all hands: %s"
              % (name, agree, pairs, full))
    same = "yes" if order["uth_scores_identical"] else "NO"
    print("  uth scores identical across viper/MicroPython, plain/MicroPython, plain/CPython:"
          " %s" % same)


def print_settle(settle, args):
    print("Settlement: uth.settle.settle(round_dict) on the MicroPython unix port, heap %s."
          % SETTLE_HEAP)
    print("  Timed: %d calls from the dict (card parsing included), best of %d runs;"
          % (settle["calls"], args.repeats))
    print("  round: 6 seats, none folded, Trips E, Bad Beat C, Play the Board A,"
          " Ultimate Pairs F;")
    print("  untimed check calls settled %s seats, %s wager results;\n"
          "  same result before and after the timed calls: %s"
          % (settle["seats"], settle["wagers"], "yes" if settle["stable"] else "NO"))
    print("  %.1f us per round (budget: under %d us on the unix port)"
          % (settle["us_per_round"], BUDGET_SETTLE_US))


def bench_pico(args, hands, mp, mp_scores, settle):
    # The emulated Pico's figures beside the unix port's: its first hands are the
    # same hands, and their scores must agree.
    from uthctl.boards.pico_image import PicoUnavailable

    if args.no_pico:
        return None
    n = min(args.pico_hands, len(hands))
    try:
        found = pico_bench.bench(hands[:n], SETTLE_ROUND, repeats=args.repeats,
                                 wear_rounds=args.wear_rounds)
    except PicoUnavailable as why:
        print("\nEmulated Pico: skipped, %s" % why)
        return None
    found["unix"] = {"hands_per_s": mp["hands"] * 1e6 / mp["viper_us"],
                     "checksum": pico_bench.checksum(mp_scores["viper"][:n]),
                     "settle_ms": settle["us_per_round"] / 1000}
    print()
    pico_bench.print_report(found, found["unix"])
    return found


def bench_images(args):
    # The project's image and the official one side by side (image_compare.py).
    from uthctl.boards.pico_image import PicoUnavailable

    if args.no_pico:
        return None
    try:
        found = image_compare.bench()
    except PicoUnavailable as why:
        print("\nThe two Pico images: skipped, %s" % why)
        return None
    print()
    image_compare.print_report(found)
    return found


def bench_esp32(args):
    # The emulated ESP32's figures (QEMU's, on this host's clock), where its kit is here.
    from uthctl.boards import esp32_flash

    if args.no_esp32:
        return None
    why = esp32_flash.unavailable()
    if why is not None:
        print("\nEmulated ESP32: skipped, %s" % why)
        return None
    found = {"repl": esp32_bench.bench(args.pico_hands, args.seed),
             "lock": esp32_lock.bench(args.esp32_lock_rounds)}
    print()
    esp32_bench.print_report(found["repl"], found["lock"])
    return found


def main():
    args = parse_args()
    hands = make_hands(args.hands, args.seed)
    with tempfile.TemporaryDirectory(prefix="uth-bench-") as tmp:
        hands_path = os.path.join(tmp, "hands.bin")
        write_hands(hands, hands_path)
        mp, mp_scores = bench_micropython(hands_path, os.path.join(tmp, "scores.json"),
                                          len(hands), args.repeats)
        cp = bench_cpython(hands, args.repeats)
        settle = bench_settle(tmp, args.settle_calls, args.repeats)
    order = check_order(mp_scores, cp, sample_pairs(args.pairs, len(hands), args.seed))
    result = figures(args, mp, cp, order, settle)
    print_report(result, args)
    result["heap"] = heap_report.unix()
    print()
    heap_report.print_unix(result["heap"])
    result["vboard_lock"] = vboard_lock.bench(args.lock_rounds)  # LOCK to the commit
    print()
    vboard_lock.print_report(result["vboard_lock"])
    result["link_answers"] = link_answers.bench(args.link_runs)  # answers before timeouts
    print()
    link_answers.print_report(result["link_answers"])
    result["pico"] = bench_pico(args, hands, mp, mp_scores, settle)
    result["images"] = bench_images(args)
    result["esp32"] = bench_esp32(args)
    pico_ok = result["pico"] is None or (
        result["pico"]["settle"]["stable"]
        and result["pico"]["unix"]["checksum"] == result["pico"]["evaluator"]["checksum"])
    esp32 = (result["esp32"] or {}).get("repl", {}).get("evaluator")
    pico_ok = pico_ok and (esp32 is None or esp32["scores_agree"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
        print("\nfigures written to %s" % args.json)
    # Figures are never judged, but contenders that disagree did not do the same work.
    return 0 if order["uth_scores_identical"] and settle["stable"] and pico_ok else 1


if __name__ == "__main__":
    sys.exit(main())
