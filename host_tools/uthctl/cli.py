# uthctl: one entry point for technicians, test labs and maintainers.
# Every command takes --json for machines and --debug, before or after its
# subcommand. An error a command expects (errors.UthctlError), an argument
# error among them, prints one line and exits 2; any other exception is a bug
# in uthctl: one line that says so and exit 1, or its traceback with --debug.
import argparse
import difflib
import json
import os
import re
import sys
import traceback

from . import __version__
from .commands import (
    accept_program,
    audit,
    authenticate,
    bridge,
    clock,
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
    provision,
    repl,
    rig,
    seed,
    setting,
    settle,
    signage,
    sim,
    soak,
    status,
    validate,
)
from .errors import UthctlError

COMMANDS = (hand, settle, par, paytables, mystery, sim, rig, meters, status, config, setting,
            payment, validate, clock, monitor, log, audit, soak, signage, bridge, floor,
            authenticate, provision, seed, accept_program, repl)


_PARSED_BY = "_uthctl_parsed_by"  # the innermost parser's prog, while parsing


class UsageError(UthctlError):
    pass


class Parser(argparse.ArgumentParser):
    # argparse prints its usage block and exits; uthctl says what was wrong in
    # one line instead (main() prints it), and points at --help. Subparsers
    # are made of the same class (add_subparsers uses type(self)).
    def error(self, message):
        raise UsageError("%s%s (see %s --help)" % (message, _suggestion(message), self.prog))

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


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


def _suggestion(message):
    # A mistyped subcommand or verb: the known ones closest to it.
    found = _INVALID_CHOICE.search(message)
    if not found:
        return ""
    choices = re.findall(r"'([^']*)'", found.group(2))
    close = difflib.get_close_matches(found.group(1), choices, n=2, cutoff=0.6)
    return "; did you mean %s?" % " or ".join(close) if close else ""


def build_parser():
    parser = Parser(
        prog="uthctl", description="Host tools for the Ultimate Texas Hold 'Em table controller")
    parser.add_argument("--version", action="version", version="uthctl " + __version__)
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command_parser = command.add_parser(sub)
        command_parser.set_defaults(run=command.run)
    _add_flags(parser)
    return parser


_FLAGS = (("--json", "print JSON"),
          ("--debug", "show the traceback of an internal error (a bug in uthctl)"))


def _add_flags(parser):
    # --json and --debug on every parser of the tree. SUPPRESS keeps a
    # subparser that did not see a flag from overwriting it given at an
    # outer level.
    for flag, meaning in _FLAGS:
        if flag not in parser._option_string_actions:
            parser.add_argument(flag, action="store_true", default=argparse.SUPPRESS,
                                help=meaning)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in set(action.choices.values()):
                _add_flags(child)


def _fail(wants_json, message):
    if wants_json:
        print(json.dumps({"error": message}))
    else:
        print("uthctl: error: " + message, file=sys.stderr)
    return 2


def _bug(wants_json, error):
    # An exception no command expects: uthctl's own fault, said plainly.
    message = "internal error (a bug in uthctl): %s: %s" % (type(error).__name__, error)
    if wants_json:
        print(json.dumps({"error": message, "internal": True}))
    else:
        print("uthctl: " + message + "; run again with --debug for its traceback",
              file=sys.stderr)
    return 1


def _reader_gone():
    # The reader closed the pipe (`uthctl status | head`): it has what it
    # wanted, so uthctl ends quietly with status 0, as `head` itself does;
    # what is left in stdout's buffer goes to /dev/null, not to a flush at
    # exit that would fail again.
    try:
        stdout = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file: nothing is flushed at exit
        return 0
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stdout)
    finally:
        os.close(devnull)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(argv)
    except UsageError as error:
        return _fail("--json" in argv, str(error))
    args.json = getattr(args, "json", False)
    args.debug = getattr(args, "debug", False)
    try:
        return args.run(args) or 0
    except BrokenPipeError:
        return _reader_gone()
    except UthctlError as error:
        return _fail(args.json, str(error))
    except Exception as error:  # noqa: BLE001 -- a bug in uthctl, said to be one
        if args.debug:
            traceback.print_exc()
            return 1
        return _bug(args.json, error)


if __name__ == "__main__":
    sys.exit(main())
