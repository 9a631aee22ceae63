# uthctl: one entry point for technicians, test labs and maintainers.
# Every command takes --json for machines; errors exit 2 with one clear line.
import argparse
import json
import sys

from . import (
    cmd_hand,
    cmd_meters,
    cmd_mystery,
    cmd_par,
    cmd_paytables,
    cmd_rig,
    cmd_settle,
    cmd_sim,
)

COMMANDS = (cmd_hand, cmd_settle, cmd_par, cmd_paytables, cmd_mystery, cmd_sim, cmd_rig,
            cmd_meters)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="uthctl", description="Host tools for the Ultimate Texas Hold 'Em table controller")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command_parser = command.add_parser(sub)
        command_parser.add_argument("--json", action="store_true", help="print JSON")
        command_parser.set_defaults(run=command.run)
    return parser


def _fail(args, message):
    if getattr(args, "json", False):
        print(json.dumps({"error": message}))
    else:
        print("uthctl: error: " + message, file=sys.stderr)
    return 2


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.run(args) or 0
    except BrokenPipeError:
        # The reader went away (`uthctl par ... | head`): not an error of ours.
        sys.stderr.close()
        return 0
    except (ValueError, OSError) as error:
        return _fail(args, str(error))


if __name__ == "__main__":
    sys.exit(main())
