# uthctl settle FILE|-: settle every side wager of a round given as JSON.
# The result says when a paytable it used rests on a temporary section past
# its date (653b.2-653b.5), by this computer's date; it still settles.
import json
import sys

from mystery.configs import MICROS_PER_CENT
from mystery.money import dollars
from uth.round import MAX_STAKE_CENTS, parse_round
from uth.settle import settle_parsed

from ..analysis import expiry
from ..errors import UthctlError, expecting, taken_as


def add_parser(sub):
    parser = sub.add_parser("settle", help="settle a round's side wagers (JSON file or -)")
    parser.add_argument("file", metavar="FILE", help="the round as JSON, or - for stdin")
    parser.add_argument("--max-payout", metavar="CENTS", type=int, default=None,
                        help="the payout limitation of 653a.12(h): the most one wager wins in "
                        "a round, in cents, for every wager (the round's own "
                        "\"max_payout_cents\" gives it per wager)")
    parser.add_argument("--max-stake", metavar="CENTS", type=int, default=None,
                        help="the most one side wager's stake may be, in cents (default: the "
                        "round's own \"max_stake_cents\", else %d, as a table's "
                        "setting max_stake_cents is by default); a stake over it is refused"
                        % MAX_STAKE_CENTS)
    return parser


def _read(path):
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        where = "stdin" if path == "-" else path
        raise UthctlError("%s is not JSON: %s" % (where, error)) from None


def _net(cents):
    # A win or a push with its "+", so it reads against a loss's "-".
    return ("+" if cents >= 0 else "") + dollars(cents * MICROS_PER_CENT)


def _print_table(result):
    for seat in result["seats"]:
        print("seat %d" % seat["seat"])
        for wager, outcome in seat["results"].items():
            odds = "%d to 1" % outcome["odds"] if outcome["odds"] is not None else "loses"
            category = (outcome["category"] or "-").replace("_", " ")
            line = "  %-15s %-16s %-10s %s" % (wager, category, odds, _net(outcome["net"]))
            if outcome.get("limited"):
                line += "  (limited: the odds pay %s)" % _net(outcome["unlimited"])
            print(line)


@expecting(OSError)
def run(args):
    """uthctl settle: settle a round's side wagers (JSON file or -)."""
    data = _read(args.file)
    for name, value in (("max_payout_cents", args.max_payout),
                        ("max_stake_cents", args.max_stake)):
        if value is not None:
            if not isinstance(data, dict):
                raise UthctlError("the round must be an object")
            data[name] = value
    with taken_as(None):  # the firmware's parser says what is wrong with the round
        round_ = parse_round(data)
    result = settle_parsed(round_)
    found = expiry.report([table.section for table in round_.tables.values()])
    if args.json:
        print(json.dumps(dict(result, expiry=found)))
    else:
        for line in expiry.warning_lines(found):
            print(line)
        _print_table(result)
