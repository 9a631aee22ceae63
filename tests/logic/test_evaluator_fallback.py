# The evaluator uses a native one only when it scores known hands right: one
# that loads and then fails when called (a MemoryError, as a port refusing
# its native code's memory gives) or scores a hand wrong leaves the plain twin
# in its place, and hands are still scored right. The known hands' scores are
# checked here against the independent brute ranker, mapped into the score
# layout (eval_plain's header) by brute_ranker.layout_score.
import sys

from brute_ranker import layout_score
from lcg import Lcg
from uth import eval_check
from uth.cards import parse_cards


class _StandInModule:
    # What `from .eval_viper import score` finds in sys.modules instead of the module.
    def __init__(self, score):
        self.score = score


def _evaluator_with(score):
    # uth.evaluator imported afresh with eval_viper's score replaced by this one;
    # sys.modules and the package as they were afterwards.
    import uth

    names = ("uth.evaluator", "uth.eval_viper")
    saved = [sys.modules.get(name) for name in names]
    attribute = uth.__dict__.get("evaluator")
    sys.modules["uth.eval_viper"] = _StandInModule(score)
    sys.modules.pop("uth.evaluator", None)
    try:
        return __import__("uth.evaluator", None, None, ["KIND"])
    finally:
        for name in names:
            module = saved.pop(0)
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        if attribute is not None:
            uth.evaluator = attribute
        elif "evaluator" in uth.__dict__:
            delattr(uth, "evaluator")


def _hands(count):
    rng = Lcg(653)
    return [rng.deal(7) for _ in range(count)]


def _scores_right(evaluator):
    for codes in _hands(150):
        assert evaluator.evaluate(codes) == layout_score(codes), codes


def test_the_known_hands_codes_are_their_cards():
    for cards, codes, _ in eval_check.KNOWN:
        assert codes == bytes(parse_cards(cards)), cards


def test_the_known_scores_are_the_brute_rankers():
    for cards, _, expected in eval_check.KNOWN:
        assert expected == layout_score(parse_cards(cards)), cards


def test_the_known_hands_take_every_category_and_5_to_7_cards():
    categories = set(expected >> 26 for _, _, expected in eval_check.KNOWN)
    counts = set(len(codes) for _, codes, _ in eval_check.KNOWN)
    assert (categories, counts) == (set(range(10)), {5, 6, 7})


def test_a_native_score_that_raises_memory_error_is_not_used():
    def fails(hand, n):
        raise MemoryError("memory allocation failed, allocating 800 bytes")

    evaluator = _evaluator_with(fails)
    assert evaluator.KIND == "plain" and evaluator.score is not fails
    _scores_right(evaluator)


def test_a_native_score_wrong_on_one_hand_is_not_used():
    from uth import eval_plain

    flush = bytes(parse_cards("2h 5h 7h 9h Jh Qh Ad"))

    def wrong_on_the_flush(hand, n):
        right = eval_plain.score(hand, n)
        return right - 1 if bytes(hand[:n]) == flush else right

    evaluator = _evaluator_with(wrong_on_the_flush)
    assert evaluator.KIND == "plain" and evaluator.score is not wrong_on_the_flush
    _scores_right(evaluator)


def test_a_native_score_that_scores_right_is_used():
    from uth import eval_plain

    def right(hand, n):
        return eval_plain.score(hand, n)

    evaluator = _evaluator_with(right)
    assert (evaluator.KIND, evaluator.score) == ("viper", right)
    _scores_right(evaluator)


def test_the_interpreter_keeps_its_native_evaluator():
    # The unix port has the native emitter, as the Pico's image has: viper stays.
    from uth import evaluator

    expected = "viper" if sys.implementation.name == "micropython" else "plain"
    assert evaluator.KIND == expected, evaluator.KIND
    _scores_right(evaluator)
