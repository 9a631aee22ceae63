# uthctl payment table_inventory|jackpot_slip --port PORT: how the board
# records the next validated hit as paid. The board keeps the choice in
# memory only: after a restart it is table_inventory again.
import json

from mystery.meter import PAYMENTS

from ..errors import expecting
from .boardquery import add_board_arguments, ask, open_link


def add_parser(sub):
    parser = sub.add_parser("payment", help="choose how a validated hit is recorded as paid")
    parser.add_argument("method", choices=PAYMENTS,
                        help="table_inventory (paid from the table's chips) or jackpot_slip")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl payment: choose how a validated hit is recorded as paid."""
    with open_link(args) as link:
        reply = ask(link, "payment", method=args.method)
    if args.json:
        print(json.dumps(reply))
    else:
        print("payment        %s: the next validated hit is recorded as paid this way "
              "(until the board restarts)" % reply["method"].replace("_", " "))
