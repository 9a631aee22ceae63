# What the board commands (status, config, payment) share: the link to the
# port given (or found with --port auto), a command whose refusal is an
# error, and the figures of a Mystery configuration as the firmware has them.
from mystery import configs
from table.controller import HIT_PENDING, LOCKED
from uth import sections

from ..analysis import expiry, mystery_report
from ..errors import Refusal, UthctlError
from ..links import ports
from ..links.board_link import Link
from .meters import seconds

# The meter phases (firmware/mystery/meter.py) in which no cycle is under way.
RESTING_PHASES = ("unconfigured", "awaiting_reset")


def add_board_arguments(parser):
    ports.add_port(parser)
    parser.add_argument("--timeout", type=seconds, default=5.0, metavar="S",
                        help="seconds to wait for each reply (more than 0)")


def open_link(args):
    # Exclusive, as mpremote: a monitor on the same port is refused, not raced.
    return Link(ports.resolve(args.port), timeout=args.timeout, exclusive=True)


def ask(link, cmd, **fields):
    # The board's reply to one command; Refusal with its reason if refused,
    # UthctlError if the firmware met a bug (docs/host-link.md, "Internal errors").
    reply = link.command(cmd, **fields)
    if not reply.get("ok") and "internal" in reply:
        raise UthctlError("the board's firmware met a bug answering %s: %s (the table plays "
                          "on; read its status and meters again)" % (cmd, reply.get("error")))
    if not reply.get("ok"):
        raise Refusal("the board refused %s: %s" % (cmd, reply.get("error", "no reason given")))
    return {key: value for key, value in reply.items() if key not in ("ok", "reply", "id")}


def read_table(link):
    # The board's status and meters; meters None (with the reason) when it
    # has none to give (a store fault).
    status = ask(link, "status")
    try:
        meters, why_not = ask(link, "meters")["meters"], None
    except Refusal as error:
        meters, why_not = None, str(error)
    return status, meters, why_not


def at_reset(meters):
    # As the firmware's Meter.at_reset: no cycle, or none of its rounds played.
    return meters["phase"] in RESTING_PHASES or (
        meters["phase"] == "running" and meters["round"] == meters.get("reset_round"))


def config_details(name):
    # A configuration's figures, with its section and dates; None for none.
    if name is None:
        return None
    details = mystery_report.config_dict(configs.get(name))
    today = expiry.host_date()
    details.update(section=configs.SECTION, effective=configs.EFFECTIVE,
                   expires=configs.EXPIRES, expired=sections.expired(configs.SECTION, today),
                   warning=expiry.mystery_report(name, today)["warning"])
    return details


def config_lines(details):
    # The figures, the regulation and its dates, and a warning past them.
    if details is None:
        return ["none (the table plays no round until one is chosen in service mode)"]
    lines = [mystery_report.config_line(details),
             "58 Pa. Code %s, effective %s, expires %s%s"
             % (details["section"], details["effective"], details["expires"],
                "  EXPIRED" if details["expired"] else "")]
    if details.get("warning"):
        lines += expiry.wrapped("WARNING: " + details["warning"])
    return lines


def labelled(label, lines):
    # A label in a 15-column margin, its continuation lines indented under it.
    return ["%-15s%s" % ("" if n else label, line) for n, line in enumerate(lines)]



def to_service(state):
    # What takes the table from `state` to service mode, for a refusal: a
    # round in play must end first, a pending hit be validated first.
    if state == LOCKED:
        return ("a round is in play: the key held when it ends begins service mode (a key "
                "already held needs nothing more)")
    if state == HIT_PENDING:
        return "a hit is pending: validate it (turn the key), then hold the key switch"
    return "hold the key switch"
