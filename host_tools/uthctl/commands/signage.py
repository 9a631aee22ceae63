# uthctl signage NAME [--wager DOLLARS]: the exact words the table's signage
# adds for the Must-Hit-By Mystery bonus under configuration NAME (653b.1(b)),
# from the firmware's configuration table; --all for every configuration.
import argparse
import json

from mystery import configs

from ..analysis.signage import sign_lines
from ..errors import UthctlError, expecting


def add_parser(sub):
    parser = sub.add_parser("signage", help="the sign text for the Must-Hit-By Mystery bonus "
                            "under a configuration (653b.1(b))")
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="the configuration (%s)" % " ".join(configs.NAMES))
    parser.add_argument("--all", action="store_true", help="every configuration, in turn")
    parser.add_argument("--wager", type=_cents, metavar="DOLLARS",
                        help="the table's fixed progressive wager amount, if it has one "
                        "(at least the configuration's minimum), e.g. 5 or 5.00")
    return parser


def _cents(text):
    # Dollars as typed on a sign: "5", "5.00", "$5"; whole cents only.
    whole, _, cents = text.lstrip("$").partition(".")
    if not whole.isdigit() or not (cents == "" or (cents.isdigit() and len(cents) <= 2)):
        raise argparse.ArgumentTypeError("%r: dollars, such as 5 or 5.00" % text)
    return int(whole) * 100 + int(cents.ljust(2, "0") or 0)


def _names(args):
    if args.all == (args.name is not None):
        raise UthctlError("give one configuration NAME or --all")
    if args.all:
        return configs.NAMES
    if args.name.upper() not in configs.NAMES:
        raise UthctlError("unknown configuration %r: one of %s"
                          % (args.name, " ".join(configs.NAMES)))
    return (args.name.upper(),)


@expecting(OSError)
def run(args):
    """uthctl signage: the sign text for the Mystery bonus under a configuration."""
    signs = [(name, sign_lines(name, args.wager)) for name in _names(args)]
    if args.json:
        print(json.dumps([{"config": name, "lines": [{"text": text, "rule": cite}
                                                     for text, cite in lines]}
                          for name, lines in signs]))
        return 0
    blocks = []
    for name, lines in signs:
        heading = ["Configuration %s:" % name] if args.all else []
        blocks.append("\n".join(heading + [text for text, _ in lines]))
    print("\n\n".join(blocks))
    return 0
