# uthctl repl --port PORT: hands the board's port to MicroPython's REPL, for
# mpremote, with the key switch held (service mode). The board writes its
# `repl` record first; a live cycle's hit value then counts as exposed, and
# LOCK waits for a service-mode redraw (docs/host-link.md, "The REPL"). Outside
# service mode no byte a host sends reaches the REPL, Ctrl-C included.
import json

from table.controller import FAULT, SERVICE

from ..errors import Refusal, expecting
from ..links.board_link import reset_command
from .boardquery import add_board_arguments, ask, open_link


def add_parser(sub):
    parser = sub.add_parser("repl", help="hand the board's port to MicroPython's REPL for "
                            "mpremote (service mode; logged, and the hit value redrawn after)")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl repl: hand the board's port to MicroPython's REPL (service mode)."""
    with open_link(args) as link:
        reply = hand_off(link)
    port = link.port
    if args.json:
        print(json.dumps(dict(reply, port=port)))
        return 0
    record = "log record %d" % reply["seq"] if reply["seq"] is not None else \
        "no record: a new board's store holds none yet"
    print("REPL           the port is MicroPython's now (%s)" % record)
    if reply["exposed"]:
        print("hit value      exposed: LOCK is refused until a service-mode redraw (the host "
              "link's {\"cmd\": \"redraw\"}) once the controller runs again")
    print("service        mpremote connect %s resume fs ls   (fs, cp, exec, mip, romfs)" % port)
    print("back           `%s`, or Ctrl-D at the REPL: the controller starts again"
          % reset_command(port))
    return 0


def hand_off(link):
    # The board's reply once its port is the REPL's; Refusal when it will not.
    status = ask(link, "status")
    if status["state"] not in (SERVICE, FAULT):
        raise Refusal("not handed over: the REPL opens in service mode (hold the key switch; "
                      "the table is %s)" % status["state"])
    return ask(link, "repl")
