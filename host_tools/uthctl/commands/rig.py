# uthctl rig --sim ADDRESS ... | --port RIG_PORT ...: a test rig's hands on
# a table: the rig port of a board the host runs (the virtual board, the
# emulated Pico), or a rig Pico (boards/rig_pico) on its serial port, wired
# to a real controller. The same verbs for both:
#   chip SEAT on|off      the progressive wager's bet sensor
#   uth SEAT on|off       the UTH wager's sensor (all placed at start)
#   lock [--hold MS]      press and release the dealer's LOCK button
#   key [--hold MS]       turn and release the key (validates a hit)
#   key on|off            hold the key turned (service mode) or release it
#   door open|closed      the controller's compartment door (shut at start)
#   state                 lights, meter display and input levels
#   power on|off, reset   the board's power; reset is off then on
import argparse
import json
import sys

from ..boards.virtual import SEATS
from ..errors import UthctlError, expecting
from ..links.rig import PRESS_MS, Rig, lit


def add_parser(sub):
    parser = sub.add_parser("rig", help="drive a table's pins through a rig")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--sim", metavar="ADDRESS",
                       help="the rig address `uthctl sim --headless` printed (HOST:PORT)")
    where.add_argument("--port", metavar="RIG_PORT",
                       help="a rig Pico's serial port (/dev/ttyACM1, say), wired to the board")
    actions = parser.add_subparsers(dest="action", required=True)
    for name, text in (("chip", "progressive bet sensor"), ("uth", "UTH wager sensor")):
        action = actions.add_parser(name, help="set one seat's " + text)
        action.add_argument("seat", type=_seat)
        action.add_argument("level", choices=("on", "off"))
    lock = actions.add_parser("lock", help="press and release LOCK")
    lock.add_argument("--hold", type=int, default=PRESS_MS, metavar="MS")
    key = actions.add_parser("key", help="turn and release the key, or hold it on/off")
    key.add_argument("level", nargs="?", choices=("on", "off"))
    key.add_argument("--hold", type=int, default=PRESS_MS, metavar="MS")
    door = actions.add_parser("door", help="open or close the controller's compartment door")
    door.add_argument("level", choices=("open", "closed"))
    actions.add_parser("state", help="lights, display and inputs")
    power = actions.add_parser("power", help="switch the board on or off")
    power.add_argument("level", choices=("on", "off"))
    actions.add_parser("reset", help="power the board off and on")
    return parser


def _seat(text):
    # Checked before the rig is reached: a seat the table does not have.
    if not (text.isdigit() and 1 <= int(text) <= SEATS):
        raise argparse.ArgumentTypeError("seat must be 1 to %d, not %r" % (SEATS, text))
    return int(text)


@expecting(OSError)
def run(args):
    """uthctl rig: drive a table's pins through a rig."""
    if getattr(args, "hold", 0) < 0:
        raise UthctlError("--hold must be 0 ms or more")
    rig = Rig(args.sim) if args.sim else Rig(port=args.port)
    if args.sim and not args.json:  # a person, told when a slow chip keeps them waiting
        rig.transport.slow_note = lambda line: print(line, file=sys.stderr, flush=True)
    with rig:
        reply = _act(rig, args)
    if args.action == "state":
        print(json.dumps(reply) if args.json else format_state(reply))
    elif args.json:
        print(json.dumps(reply))
    elif reply.get("applied") is False:
        print("%s, but the board did not apply it (controller not running?)" % did(args))
    else:
        print(did(args))


def did(args):
    # What the verb did, in a line: the rig answers only once it is done.
    level = getattr(args, "level", None)
    if args.action in ("chip", "uth"):
        what = "chip" if args.action == "chip" else "UTH wager"
        return "seat %d: %s %s" % (args.seat, what, "placed" if level == "on" else "taken")
    if args.action == "lock":
        return "LOCK pressed and released (held %d ms)" % args.hold
    if args.action == "key" and level is None:
        return "key turned and released (held %d ms)" % args.hold
    if args.action == "key":
        # The rig moves the key; the table decides: a round in play ends first.
        return ("key held turned: service mode, at the round's end if one is in play "
                "(uthctl status says which)" if level == "on" else "key released")
    if args.action == "door":
        return ("door opened: LOCK refused until it is closed" if level == "open"
                else "door closed")
    if args.action == "power":
        return "power %s" % level
    return "reset: power off, then on"


def _act(rig, args):
    on = getattr(args, "level", None) == "on"
    if args.action == "chip":
        return rig.chip(args.seat, on)
    if args.action == "uth":
        return rig.uth(args.seat, on)
    if args.action == "lock":
        return rig.press_lock(args.hold)
    if args.action == "key":
        return rig.turn_key(args.hold) if args.level is None else rig.key(on)
    if args.action == "door":
        return rig.door(args.level == "open")
    if args.action == "power":
        return rig.power(on)
    if args.action == "reset":
        return rig.reset()
    return rig.state()


def format_state(state):
    inputs = state["inputs"]
    chips = _placed(inputs, "bet")
    uth = _placed(inputs, "uth")
    # The rig sees the board's pin connection, not its controller: a board
    # stopped at the REPL stays wired. Its serial port tells (uthctl meters).
    board = ("pins wired" if state["board"] else "not wired") if state["powered"] else "off"
    if state.get("rig") == "rig_pico":  # wires alone: it counts no boots, sees no REPL
        board = "a rig Pico's wires, power %s" % ("on" if state["powered"] else "off")
    else:
        board += ", boots %d, REPL mode %s" % (state["boots"], state["repl"])
    return "\n".join([
        "display        %s" % (state["display"] if state["display"] is not None else "-"),
        "bet lights     %s" % _seats(lit(state["bet_lights"])),
        "jackpot lights %s" % _seats(lit(state["jackpot_lights"])),
        "chips          %s" % _seats(chips),
        "UTH wagers     %s" % _seats(uth),
        "lock %d  key %d" % (inputs.get("lock", 0), inputs.get("key", 0)),
        "door           %s" % ("open" if inputs.get("door") else "closed"),
        "board          %s" % board,
        *_chip_clock(state),
        "controller     not seen by the rig: uthctl meters --port PTY asks it",
    ])


def _chip_clock(state):
    # An emulated chip's pace (pico.py): how far behind the wall clock it runs.
    if state.get("chip_speed") is None:
        return []
    # Two figures, not two places: a chip at 0.004x would read 0.00x.
    return ["chip clock     %.2gx real time, %.1f s behind the wall clock since power-on"
            % (state["chip_speed"], state["chip_behind_s"])]


def _placed(inputs, prefix):
    # The seats whose sensor reads placed, from the pins the board reported.
    return sorted(int(pin[len(prefix):]) for pin, level in inputs.items()
                  if pin.startswith(prefix) and pin[len(prefix):].isdigit() and level)


def _seats(numbers):
    return " ".join(str(n) for n in numbers) or "-"
