# uthctl: one entry point for technicians, test labs and maintainers.
# Every command takes --json for machines, before or after its subcommand;
# errors, argument errors included, print one line and exit 2.
import argparse
import json
import sys

from . import __version__
from .commands import (
    audit,
    bridge,
    config,
    floor,
    hand,
    log,
    meters,
    monitor,
    mystery,
    par,
    payment,
    paytables,
    rig,
    setting,
    settle,
    signage,
    sim,
    soak,
    status,
    validate,
)

COMMANDS = (hand, settle, par, paytables, mystery, sim, rig, meters, status, config, setting,
            payment, validate, monitor, log, audit, soak, signage, bridge, floor)


_PARSED_BY = "_uthctl_parsed_by"  # the innermost parser's prog, while parsing


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    # argparse prints its usage block and exits; uthctl says what was wrong in
    # one line instead (main() prints it), and points at --help. Subparsers
    # are made of the same class (add_subparsers uses type(self)).
    def error(self, message):
        raise UsageError("%s (see %s --help)" % (message, self.prog))

    def parse_known_args(self, args=None, namespace=None):
        # The innermost parser finishes first: it names itself, so words left
        # over point to the help of the subcommand they were given to.
        namespace, extras = super().parse_known_args(args, namespace)
        if not hasattr(namespace, _PARSED_BY):
            setattr(namespace, _PARSED_BY, self.prog)
        return namespace, extras

    def parse_args(self, args=None, namespace=None):
        namespace, extras = self.parse_known_args(args, namespace)
        prog = getattr(namespace, _PARSED_BY, self.prog)
        delattr(namespace, _PARSED_BY)
        if extras:
            raise UsageError("unrecognized arguments: %s (see %s --help)"
                             % (" ".join(extras), prog))
        return namespace


def build_parser():
    parser = Parser(
        prog="uthctl", description="Host tools for the Ultimate Texas Hold 'Em table controller")
    parser.add_argument("--version", action="version", version="uthctl " + __version__)
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command_parser = command.add_parser(sub)
        command_parser.set_defaults(run=command.run)
    _add_json(parser)
    return parser


def _add_json(parser):
    # --json on every parser of the tree. SUPPRESS keeps a subparser that did
    # not see it from overwriting the flag given at an outer level.
    if "--json" not in parser._option_string_actions:
        parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                            help="print JSON")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in set(action.choices.values()):
                _add_json(child)


def _fail(wants_json, message):
    if wants_json:
        print(json.dumps({"error": message}))
    else:
        print("uthctl: error: " + message, file=sys.stderr)
    return 2


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(argv)
    except UsageError as error:
        return _fail("--json" in argv, str(error))
    args.json = getattr(args, "json", False)
    try:
        return args.run(args) or 0
    except BrokenPipeError:
        # The reader went away (`uthctl par ... | head`): not an error of ours.
        sys.stderr.close()
        return 0
    except (ValueError, OSError) as error:
        return _fail(args.json, str(error))


if __name__ == "__main__":
    sys.exit(main())
