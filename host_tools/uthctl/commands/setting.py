# uthctl set [NAME VALUE] --port PORT: the table's settings (the firmware's
# mystery/settings.py), and with NAME and VALUE a change to one. The board
# changes a setting only in service mode (key held) with the meter at a
# reset, and logs each change with its old and new value (docs/host-link.md);
# the mode, the reset and the value are checked here first, so a refusal
# names its reason before anything is sent, and the change is stated (from
# -> to) and confirmed first.
import json

from mystery import configs, settings
from mystery.refusal import Refused

from ..analysis.meters_text import meaning, parse_value, setting_lines
from ..errors import Refusal, expecting
from .boardquery import add_board_arguments, ask, at_reset, open_link, read_table, to_service
from .config import confirmed, cycle_words


def add_parser(sub):
    parser = sub.add_parser("set", help="show the table's settings, or change one "
                            "(service mode)")
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="the setting to change (%s)" % " ".join(settings.NAMES))
    parser.add_argument("value", nargs="?", metavar="VALUE",
                        help="its new value: a number, a word, or null for its default")
    parser.add_argument("--yes", action="store_true",
                        help="change without asking (for scripts)")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl set: show the table's settings, or change one (service mode)."""
    if args.name is not None and args.value is None:
        raise Refusal("give the setting's new value: uthctl set %s VALUE" % args.name)
    with open_link(args) as link:
        status, meters, why_not = read_table(link)
        if meters is None:
            raise Refusal("cannot read the settings: %s" % why_not)
        if args.name is None:
            return _show(args, meters)
        return _change(args, link, status, meters, args.name, parse_value(args.value))


def _show(args, meters):
    in_force = meters["settings"]
    if args.json:
        print(json.dumps({"settings": in_force}))
        return 0
    print("\n".join(setting_lines(in_force)))
    return 0


def _checked(meters, name, value):
    # The value as the board would keep it, or Refusal with its reason.
    config = configs.get(meters["config"]) if meters.get("config") else None
    try:
        return settings.validate(name, value, config)
    except Refused as error:
        raise Refusal("not changed: %s" % error) from None


def _change(args, link, status, meters, name, value):
    value = _checked(meters, name, value)
    was = meters["settings"].get(name)
    if was == value:
        print(json.dumps({"changed": False, "name": name, "value": value}) if args.json
              else "%s is already %s: nothing to change" % (name, json.dumps(value)))
        return 0
    if status["state"] != "service":
        raise Refusal("not changed: not in service mode (the table is %s): %s, then change it"
                      % (status["state"], to_service(status["state"])))
    if not at_reset(meters):  # the board would refuse it, and log the refusal
        raise Refusal("not changed: the meter is not at a reset (%s): a setting changes only "
                      "before a cycle's first round, or once its hit is validated"
                      % cycle_words(meters))
    text = "change the setting %s: %s -> %s\n  (%s)" % (
        name, json.dumps(was), json.dumps(value), meaning(name))
    if not confirmed(args, text):
        raise Refusal("not changed: not confirmed")
    reply = ask(link, "set", name=name, value=value)
    if args.json:
        print(json.dumps(dict(reply, changed=True)))
    else:
        if args.yes:
            print(text)
        print("changed: %s is %s (was %s), logged" % (
            name, json.dumps(reply["value"]), json.dumps(reply["was"])))
    return 0
