# The hand evaluator on the emulated ESP32 (the official ESP32_GENERIC image,
# the .mpy build on its flash): it keeps its viper score (KIND), and that score
# gives 300 seeded hands of 5, 6 and 7 cards the scores the independent brute
# ranker gives them (brute_ranker.layout_score). It once raised MemoryError
# there on its first call in a benchmark; the cause was the benchmark's heap
# (docs/benchmarks.md), and evaluator.py now keeps viper only after it has
# scored known hands right.
import importlib.util
import json
from pathlib import Path

import pytest

from brute_ranker import layout_score
from lcg import Lcg
from uthctl.boards import esp32_flash

pytestmark = [pytest.mark.esp32, pytest.mark.slow,
              pytest.mark.skipif(esp32_flash.unavailable() is not None,
                                 reason=str(esp32_flash.unavailable()))]
BENCH = Path(__file__).resolve().parents[2] / "bench" / "esp32_census.py"
PROGRAM = """
import json
from uth import evaluator
hands = %s
print(json.dumps({"kind": evaluator.KIND,
                  "scores": [evaluator.score(bytes(hand), len(hand)) for hand in hands]}))
"""


def _at_repl():
    spec = importlib.util.spec_from_file_location("esp32_census", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.at_repl


def test_the_viper_evaluator_scores_right_on_the_esp32():
    rng = Lcg(2026)
    hands = [rng.deal(5 + i % 3) for i in range(300)]
    found = _at_repl()([("evaluator", PROGRAM % json.dumps(hands), 3)])
    print("emulated ESP32:", {key: found.get(key) for key in ("panics", "resets", "tries")})
    assert "evaluator" in found, found
    assert found["evaluator"]["kind"] == "viper"
    assert found["evaluator"]["scores"] == [layout_score(hand) for hand in hands]
