# uthctl meters --port PORT: the Mystery meters of a running table, asked
# over its host link (a board's USB serial port or the virtual board's pty).
import argparse
import json
import math
import time

from mystery.configs import MICROS_PER_CENT
from mystery.money import dollars

from ..links import ports
from ..links.hostlink import Link

# A failed commit left this cycle's hit value on flash: the board refuses every
# round until a redraw in service mode replaces it (README, docs/host-link.md).
EXPOSED_LINES = (
    "EXPOSED        this cycle's hit value was written to flash by an operation",
    "               that did not commit: every round is refused until it is",
    "               redrawn. To recover, hold the key (service mode), then send",
    "               {\"cmd\": \"redraw\"} on the host link (`uthctl sim`: d);",
    "               release the key to play.",
)


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
        raise ValueError("the board refused: %s" % reply.get("error", "no reason given"))
    return reply["meters"]


def run(args):
    meters = read_meters(args.port, args.timeout)
    print(json.dumps(meters) if args.json else format_meters(meters))


def _at(when):
    # The board's clock at the hit; a board whose clock was never set starts at its epoch.
    if when is None:
        return ""
    return ", " + time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(when)) + " board time"


def settings_text(in_force):
    # The table's settings on one line: wager_cents 500, reset carry.
    return ", ".join("%s %s" % (name, json.dumps(value).strip('"'))
                     for name, value in sorted(in_force.items()))


def format_meters(m):
    lines = [
        "configuration  %s" % (m.get("config") or "none"),
        "phase          %s" % m["phase"],
        *(EXPOSED_LINES if m.get("exposed") else ()),
        "cycle          %d   round %d" % (m["cycle"], m["round"]),
        "meter          %s" % dollars(m["meter"]),
        "contributed    %s" % dollars(m["contributed"]),
        "seeded         %s" % dollars(m["seeded"]),
        "paid           %s" % dollars(m["paid"]),
        *(["retained       %s" % dollars(m["retained"])] if m.get("retained") else ()),
        "hits           %d" % m["hits"],
        "display        %s" % dollars(m["display_cents"] * MICROS_PER_CENT),
    ]
    if m.get("pending"):
        seat, award, cycle, round_number, when = m["pending"]
        lines.append("pending hit    seat %d, %s (cycle %d, round %d%s)"
                     % (seat, dollars(award), cycle, round_number, _at(when)))
    for seat, award, cycle, round_number, payment, when in m.get("last_hits", [])[-5:]:
        lines.append("hit            seat %d, %s (cycle %d, round %d, %s%s)"
                     % (seat, dollars(award), cycle, round_number, payment, _at(when)))
    if m.get("settings"):
        lines.append("settings       %s" % settings_text(m["settings"]))
    if m.get("commitment"):
        lines.append("commitment     %s" % m["commitment"])
    if "log_seq" in m:
        lines.append("log head       record %d, hash %s (%d older records dropped)"
                     % (m["log_seq"], m.get("log_hash", "?"), m.get("log_dropped", 0)))
    return "\n".join(lines)
