# uthctl validate --employee N [--slip S] --port PORT: who validates the
# pending hit and the jackpot slip's number (653b.1(c)(5)(ii)), sent before
# the floorperson turns the key; the key turn records both in the validated
# record. The board takes it only while a hit is pending, as 1 to 24
# printable characters each; both are checked here first, so a refusal names
# its reason before anything is sent. Given again, it replaces the last.
import json

from mystery.meter import PENDING_AWARD, PENDING_SEAT, Refused, check_validation_text
from mystery.money import dollars
from table.controller import HIT_PENDING

from ..errors import Refusal, expecting
from .boardquery import add_board_arguments, ask, open_link


def add_parser(sub):
    parser = sub.add_parser("validate", help="give the validating employee's number and the "
                            "jackpot slip's for the pending hit, before the key turn")
    parser.add_argument("--employee", required=True, metavar="N",
                        help="the validating employee's number")
    parser.add_argument("--slip", metavar="S",
                        help="the jackpot slip's number (leave out for a payment from the "
                        "table inventory)")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl validate: the validating employee's and the slip's numbers for a hit."""
    try:
        check_validation_text("employee", args.employee)
        check_validation_text("slip", args.slip)
    except Refused as error:
        raise Refusal("not sent: %s" % error) from None
    with open_link(args) as link:
        status = ask(link, "status")
        if status["state"] != HIT_PENDING:
            raise Refusal("not sent: no hit is pending (the table is %s)" % status["state"])
        reply = ask(link, "validation", employee=args.employee, slip=args.slip)
        pending = ask(link, "meters")["meters"]["pending"]
    if args.json:
        print(json.dumps(dict(reply, pending=pending)))
        return 0
    seat, award = pending[PENDING_SEAT], pending[PENDING_AWARD]
    print("validation for the hit at seat %d, %s: employee %s, jackpot slip %s\n"
          "recorded when the floorperson turns the key" % (
              seat, dollars(award), reply["employee"], reply["slip"] or "none"))
    return 0
