# uthctl meters --port PORT: the Mystery meters of a running table, asked
# over its host link (a board's USB serial port or the virtual board's pty).
import argparse
import json
import math

from ..analysis.meters_text import format_meters
from ..errors import UthctlError, expecting
from ..links import ports
from ..links.board_link import Link


def add_parser(sub):
    parser = sub.add_parser("meters", help="read the Mystery meters over the host link")
    ports.add_port(parser)
    parser.add_argument("--timeout", type=seconds, default=5.0, metavar="S",
                        help="seconds to wait for the reply (more than 0)")
    return parser


def seconds(text):
    # A wait in seconds: a positive, finite number.
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError("must be a number of seconds above 0, not %r" % text)
    return value


def read_meters(port, timeout=5.0):
    with Link(ports.resolve(port), timeout=timeout) as link:
        reply = link.command("meters")
    if not reply.get("ok"):
        raise UthctlError("the board refused: %s" % reply.get("error", "no reason given"))
    return reply["meters"]


@expecting(OSError)
def run(args):
    """uthctl meters: read the Mystery meters over the host link."""
    meters = read_meters(args.port, args.timeout)
    print(json.dumps(meters) if args.json else format_meters(meters))
