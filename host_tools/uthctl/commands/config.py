# uthctl config [NAME] --port PORT: the Mystery configuration in force, and
# with NAME a change to another. The board changes it only in service mode
# (key held) with the meter at a reset (docs/host-link.md); both are checked
# here first, so a refusal names its reason before anything is sent, and the
# change is stated (from -> to, with the new figures) and confirmed first.
import json
import sys

from mystery import configs, settings
from mystery.money import dollars
from mystery.refusal import Refused

from ..analysis import expiry
from ..errors import Refusal, expecting
from .boardquery import (
    add_board_arguments,
    ask,
    at_reset,
    config_details,
    config_lines,
    labelled,
    open_link,
    read_table,
    to_service,
)


def add_parser(sub):
    parser = sub.add_parser("config", help="show the Mystery configuration, or change it "
                            "(service mode, meter at a reset)")
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="the configuration to change to (%s)" % " ".join(configs.NAMES))
    parser.add_argument("--yes", action="store_true",
                        help="change without asking (for scripts)")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl config: show the Mystery configuration, or change it (service mode)."""
    name = None if args.name is None else _known(args.name)
    with open_link(args) as link:
        status, meters, why_not = read_table(link)
        if meters is None:
            raise Refusal("cannot read the configuration: %s" % why_not)
        if name is None:
            return _show(args, status, meters)
        return _change(args, link, status, meters, name)


def _known(name):
    # A configuration name in either case; an unknown one is refused here.
    if name.upper() not in configs.NAMES:
        raise Refusal("unknown configuration %r: one of %s" % (name, " ".join(configs.NAMES)))
    return name.upper()


# ---- show ----

def _show(args, status, meters):
    details = config_details(meters["config"])
    ready = status["state"] == "service" and at_reset(meters)
    if args.json:
        print(json.dumps({"config": details, "state": status["state"],
                          "phase": meters["phase"], "at_reset": at_reset(meters),
                          "changeable": ready}))
        return 0
    lines = labelled("configuration", config_lines(details))
    lines.append("phase          %s   cycle %d   round %d   meter %s"
                 % (meters["phase"], meters["cycle"], meters["round"], dollars(meters["meter"])))
    lines.append("change         %s" % ("possible now: uthctl config NAME" if ready
                                        else _why_not(status, meters)))
    lines += expiry.board_lines(status)
    print("\n".join(lines))
    return 0


# ---- change ----

def _why_not(status, meters):
    # Why the board would refuse a change now, or None.
    if status["state"] != "service":
        return ("not in service mode (the table is %s): %s, then change it"
                % (status["state"], to_service(status["state"])))
    if not at_reset(meters):
        return ("the meter is not at a reset (%s): a configuration changes only before a "
                "cycle's first round, or once its hit is validated" % cycle_words(meters))
    return None


def _settings_misfit(meters, name):
    # A setting in force the new configuration would not take (a fixed wager
    # under its minimum), as the board would refuse it; None when all fit.
    in_force = meters.get("settings") or {}
    try:
        for setting in settings.NAMES:
            if setting in in_force:
                settings.validate(setting, in_force[setting], configs.get(name))
    except Refused as error:
        return "%s; change that setting first (uthctl set)" % error
    return None


def cycle_words(meters):
    if meters["phase"] == "pending":
        return "a hit is pending"
    played = meters["round"] - meters.get("reset_round", 0)
    return "cycle %d has played %d round%s since its reset, meter %s" % (
        meters["cycle"], played, "" if played == 1 else "s", dollars(meters["meter"]))


def plan(meters, name):
    # What the change does to the meter: the untouched cycle's seed is
    # withdrawn and the new configuration's minimum seeded (meter.py).
    old = config_details(meters["config"])
    new = config_details(name)
    withdrawn = old["minimum"] if meters["phase"] == "running" else 0
    return {"from": old, "to": new, "meter": meters["meter"],
            "meter_after": meters["meter"] - withdrawn + new["minimum"]}


def _plan_lines(change):
    old = change["from"]
    lines = ["change the Mystery configuration %s -> %s"
             % (old["name"] if old else "none", change["to"]["name"])]
    lines += labelled("  from", config_lines(old)[:1])
    lines += labelled("  to", config_lines(change["to"]))
    lines.append("  meter        %s -> %s, a new cycle with a new hit value"
                 % (dollars(change["meter"]), dollars(change["meter_after"])))
    return lines


def confirmed(args, text):
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise Refusal("not changed: no terminal to ask on; give --yes to change without asking")
    # With --json the question goes to stderr, leaving stdout one JSON object.
    out = sys.stderr if args.json else sys.stdout
    out.write(text + "\nChange it? [y/N] ")
    out.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _change(args, link, status, meters, name):
    if meters["config"] == name:
        print(json.dumps({"changed": False, "config": config_details(name)}) if args.json
              else "%s is already the configuration in force: nothing to change" % name)
        return 0
    why_not = _why_not(status, meters) or _settings_misfit(meters, name)
    if why_not:
        raise Refusal("not changed: " + why_not)
    change = plan(meters, name)
    if not confirmed(args, "\n".join(_plan_lines(change))):
        raise Refusal("not changed: not confirmed")
    reply = ask(link, "config", mystery=name)
    after = ask(link, "meters")["meters"]
    if args.json:
        print(json.dumps(dict(change, changed=True, meters=after, rules=reply.get("rules"))))
    else:
        if args.yes:
            print("\n".join(_plan_lines(change)))
        print("changed: %s in force, cycle %d, meter %s"
              % (after["config"], after["cycle"], dollars(after["meter"])))
        for line in expiry.board_lines({"rules": reply.get("rules")}):
            print(line)
    return 0
