# uthctl status --port PORT: what a running table is doing, in one look:
# its state, configuration, meter, fault and firmware, from the board's
# `status` and `meters` replies over the host link.
import json

from mystery.configs import MICROS_PER_CENT
from mystery.meter import PENDING_AWARD, PENDING_SEAT
from mystery.money import dollars
from table.controller import BETTING, FAULT, HIT_PENDING, LOCKED, NOT_CONFIGURED, SERVICE

from ..analysis import expiry
from ..analysis.meters_text import EXPOSED_LINES, settings_text
from ..errors import expecting
from .boardquery import (
    add_board_arguments,
    config_details,
    config_lines,
    labelled,
    open_link,
    read_table,
)

# What each of the firmware's states means to the floor, keyed by its names.
STATES = {
    BETTING: "betting (chips may be placed; LOCK locks the round)",
    LOCKED: "locked (the round is in play)",
    HIT_PENDING: "hit pending (a floorperson validates it with the key)",
    SERVICE: "service mode (key held)",
    FAULT: "FAULT (the table plays nothing until a technician clears it)",
    NOT_CONFIGURED: "not configured (choose a configuration in service mode)",
}


def add_parser(sub):
    parser = sub.add_parser("status", help="the table's state, configuration, meter, fault "
                            "and firmware, over the host link")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl status: the table's state, configuration, meter, fault and firmware."""
    with open_link(args) as link:
        status, meters, why_not = read_table(link)
    if args.json:
        print(json.dumps({"status": status, "meters": meters, "meters_error": why_not,
                          "config": config_details((meters or status).get("config"))}))
    else:
        print(format_status(status, meters, why_not))


def _seats(seats):
    return "seats " + ", ".join(str(seat) for seat in seats) if seats else "none"


def _firmware(status):
    if "version" not in status and "build" not in status:
        return "not reported by this firmware"
    return "version %s, build %s" % (status.get("version", "?"), status.get("build", "?"))


def _record_key(status):
    # The key's id alone: the board never tells the key (docs/host-link.md, "Record keys").
    if "key_id" not in status:
        return "not reported by this firmware"
    return status["key_id"] or "none (unsigned: uthctl provision gives it one)"


def _generator(status):
    # Whether the board's secrets come from its seeded generator (docs/mystery.md).
    if "drbg" not in status:
        return "not reported by this firmware"
    if status["drbg"] == "instantiated":
        return "HMAC_DRBG, seeded"
    return "not seeded: the hit value is drawn from the board's own source (uthctl seed)"


# The start's program check (docs/host-link.md, "The program at start"), by its verdict.
_PROGRAM = {"accepted": "accepted, checked at this start",
            "not_accepted": "not accepted yet: it plays, unchecked, until a technician "
                            "accepts it (uthctl accept-program)",
            "changed": "NOT the accepted program: no play until a technician accepts it "
                       "(uthctl accept-program, the key held)",
            "unreadable": "could not be read at start: no play"}


def _program(status):
    program = status.get("program")
    if program is None:
        return "not checked by this firmware"
    text = _PROGRAM.get(program["check"], program["check"])
    if program.get("digest"):
        text += " (%s %s)" % (program["kind"], program["digest"][:16])
    if program.get("check_ms") is not None:
        text += ", the check took %d ms" % program["check_ms"]
    return text


def format_status(status, meters, why_not=None):
    config = (meters or status).get("config")
    lines = ["state          %s" % STATES.get(status["state"], status["state"]),
             "fault          %s" % (status.get("fault") or "none")]
    if meters is None and "config" not in status:  # a fault: the store gave no meter
        lines.append("configuration  unknown (no meter record read)")
    else:
        lines += labelled("configuration", config_lines(config_details(config)))
        lines += expiry.clock_lines(status) + expiry.board_lines(status)
    if status.get("exposed") or (meters or {}).get("exposed"):
        lines += EXPOSED_LINES
    if meters is None:
        lines.append("meters         unavailable: %s" % why_not)
    else:
        lines += _meter_lines(meters)
    if status.get("settings"):
        lines.append("settings       %s" % settings_text(status["settings"]))
    lines += ["payment        %s" % status["payment"].replace("_", " "),
              "locked in      %s" % _seats(status.get("locked_in")),
              "stale chips    %s" % _seats(status.get("stale_chips")),
              "firmware       %s" % _firmware(status),
              "record key     %s" % _record_key(status),
              "generator      %s" % _generator(status),
              "program        %s" % _program(status)]
    if status.get("internal_errors"):  # commands that met a firmware bug since start-up
        lines.append("firmware bugs  %d command(s) got an internal error since start-up"
                     % status["internal_errors"])
    if "qualify" in status:  # the board's declaration: both spots, or the progressive alone
        lines.append("qualify        %s" % status["qualify"].replace("_", " "))
    lines += ["WARNING        %s" % warning for warning in status.get("warnings", [])]
    return "\n".join(lines)


def _meter_lines(m):
    lines = ["phase          %s   cycle %d   round %d" % (m["phase"], m["cycle"], m["round"]),
             "meter          %s   (display %s)"
             % (dollars(m["meter"]), dollars(m["display_cents"] * MICROS_PER_CENT)),
             "hits           %d" % m["hits"]]
    if m.get("pending"):
        seat, award = m["pending"][PENDING_SEAT], m["pending"][PENDING_AWARD]
        lines.append("pending hit    seat %d, %s: validate with the key" % (seat, dollars(award)))
    return lines
