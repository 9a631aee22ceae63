# The meters and settings as text, for `uthctl meters`, `status`, `set` and the
# audit report: what a person reads of a board's figures, in one place.
import json
import textwrap
import time

from mystery import settings
from mystery.configs import MICROS_PER_CENT
from mystery.money import dollars
from mystery.refusal import Refused

# A failed commit left this cycle's hit value on flash: the board refuses every
# round until a redraw in service mode replaces it (README, docs/host-link.md).
EXPOSED_LINES = (
    "EXPOSED        this cycle's hit value was written to flash by an operation",
    "               that did not commit: every round is refused until it is",
    "               redrawn. To recover, hold the key (service mode), then send",
    "               {\"cmd\": \"redraw\"} on the host link (`uthctl sim`: d);",
    "               release the key to play.",
)


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
        # A firmware from before the wager meters gives none.
        *(["wagered        %s in %d qualifying wagers" % (dollars(m["wagered"]),
                                                         m["qualifying_wagers"])]
          if "qualifying_wagers" in m else ()),
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
                     % (m["log_seq"], m.get("log_hash", "?"),
                        m.get("log_removed", m.get("log_dropped", 0))))
        if "log_collected" in m:
            lines.append("collected      up to record %d: %d records wait, of room for %d; "
                         "%d lost before collection" % (m["log_collected"],
                                                        m["log_uncollected"],
                                                        m["log_capacity"], m["log_dropped"]))
    return "\n".join(lines)


SETTING_WIDTH = 79  # a terminal's line, less one
SHORT_VALUE = 14  # a value longer than this has a line of its own


def setting_lines(in_force):
    # A setting's name, its value in force and what it means, in columns that
    # hold: a long value on a line of its own, the meaning wrapped beneath.
    names = sorted(in_force)
    values = {name: json.dumps(in_force[name]) for name in names}
    name_width = max([len(name) for name in names] + [0])
    value_width = max([len(v) for v in values.values() if len(v) <= SHORT_VALUE] + [0])
    indent = " " * (name_width + value_width + 2)
    lines = []
    for name in names:
        value = values[name]
        if len(value) > SHORT_VALUE:
            lines.append("%-*s %s" % (name_width, name, value))
            head = indent
        else:
            head = "%-*s %-*s " % (name_width, name, value_width, value)
        lines += textwrap.wrap(meaning(name), SETTING_WIDTH, initial_indent=head,
                               subsequent_indent=indent) or [head.rstrip()]
    return lines


def meaning(name):
    # The firmware's own description; a setting this host does not know (a
    # newer firmware) is shown without one.
    try:
        return settings.description(name)
    except Refused:
        return ""


def parse_value(text):
    # A setting's value as a person types it: JSON where the text is JSON
    # (500, null, "carry"), else the word itself.
    try:
        return json.loads(text)
    except ValueError:
        return text
