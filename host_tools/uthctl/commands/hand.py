# uthctl hand CARD...: the category and best five of 5 to 7 cards.
import json

from uth.cards import card_names, parse_cards
from uth.categories import category_name
from uth.evaluator import best_five, evaluate

from ..errors import expecting, taken_as


def add_parser(sub):
    parser = sub.add_parser("hand", help="evaluate 5 to 7 cards, e.g. As Kd Qh Jc Ts 2c 3d")
    parser.add_argument("cards", nargs="+", metavar="CARD")
    return parser


@expecting()
def run(args):
    """uthctl hand: evaluate 5 to 7 cards, e.g. As Kd Qh Jc Ts 2c 3d."""
    with taken_as(None):
        codes = parse_cards(args.cards)
    score = evaluate(codes)
    result = {"category": category_name(score), "best": card_names(best_five(codes)),
              "score": score}
    if args.json:
        print(json.dumps(result))
    else:
        # The category's own name, as the paytables, par sheets and events spell it.
        print("%s: %s" % (result["category"], " ".join(result["best"])))
