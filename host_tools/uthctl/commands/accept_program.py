# uthctl accept-program --port PORT: accepts the program the board runs, in
# service mode (the key switch held), or with the key held while the board
# is in the fault its start's program check raised (docs/host-link.md, "The
# program at start"). The board records the acceptance in a signed `program`
# record naming the digest accepted before and this one; from then on each
# start compares the program it runs with it. Check the program first with
# `uthctl authenticate`: this accepts whatever the board runs.
import json

from table.controller import FAULT, SERVICE

from ..errors import Refusal, UthctlError, expecting
from .boardquery import add_board_arguments, ask, open_link


def add_parser(sub):
    parser = sub.add_parser("accept-program", help="accept the program the board runs, so "
                            "each start checks it (service mode; uthctl authenticate first)")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    with open_link(args) as link:
        reply = accept(link)
    if args.json:
        print(json.dumps({"digest": reply["digest"], "was": reply["was"], "seq": reply["seq"]}))
    else:
        print("program    %s accepted (log record %d)\nwas        %s"
              % (reply["digest"], reply["seq"], reply["was"] or "none accepted"))
    return 0


def accept(link):
    # The board's reply once it accepted its program; Refusal when it will not.
    status = ask(link, "status")
    if status.get("program") is None:
        raise UthctlError("this board's firmware checks no program at start")
    if status["state"] not in (SERVICE, FAULT):
        raise Refusal("not accepted: a program is accepted in service mode (hold the key "
                      "switch; the table is %s)" % status["state"])
    return ask(link, "accept_program")
