# uthctl clock --port PORT [--set]: the board's calendar clock, which decides
# which regulations the board says are in force (a Pico has no battery: it
# starts at 2021-01-01 at every power-on, "unset"). --set sets it to the
# host's local time, as `mpremote rtc --set` does: over the host link in
# service mode (the key held), or, when the controller is stopped at the
# REPL, through mpremote's own `rtc --set` (the board is left at the REPL).
import json
import subprocess
import sys
import time
from pathlib import Path

from table import expiry
from table.controller import SERVICE

from ..errors import Refusal, UthctlError, expecting
from ..links.board_link import AtReplError, way_back
from .boardquery import add_board_arguments, ask, open_link, to_service

MPREMOTE_WAIT = 30.0  # seconds for one mpremote command at the default --timeout
STATES = {"set": "set", "unset": "UNSET (never set since power-on)", "none": "none"}


def add_parser(sub):
    parser = sub.add_parser("clock", help="read the board's date and time, or set it from "
                            "the host's (--set)")
    parser.add_argument("--set", action="store_true",
                        help="set it to the host's local time (service mode, or the "
                             "controller stopped at the REPL)")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl clock: read the board's date and time, or set it from the host's (--set)."""
    try:
        with open_link(args) as link:
            reply = _over_link(link, args.set)
    except AtReplError:
        reply = _by_mpremote(args.port, args.set, mpremote_wait(args.timeout))
    print(json.dumps(reply) if args.json else format_clock(reply))
    return 0


def host_time():
    return list(time.localtime()[:6])


def _over_link(link, setting):
    if not setting:
        return ask(link, "clock")
    status = ask(link, "status")
    if status["state"] != SERVICE:
        raise Refusal("not set: the clock is set in service mode, or with the controller "
                      "stopped (the table is %s): %s" % (status["state"],
                                                        to_service(status["state"])))
    return dict(ask(link, "clock", set=host_time()), by="the host link", set=True)


def mpremote_wait(reply_timeout):
    # mpremote's connect, raw REPL and command take several of a board's replies:
    # 30 s at the default --timeout, longer for a slower board given a longer one.
    return max(MPREMOTE_WAIT, 6 * reply_timeout)


def _by_mpremote(port, setting, wait=MPREMOTE_WAIT):
    # The controller is stopped: mpremote's own RTC commands, as a technician types them.
    if setting:
        _mpremote(port, wait, "rtc", "--set")
    shown = _mpremote(port, wait, "rtc").strip()
    try:  # machine.RTC().datetime(): (year, month, day, weekday, hours, minutes, seconds, sub)
        fields = json.loads(shown.replace("(", "[").replace(")", "]"))
        now = fields[:3] + fields[4:7]
    except (ValueError, IndexError):
        raise UthctlError("mpremote rtc printed %r, not the board's RTC" % shown) from None
    date = "%04d-%02d-%02d" % tuple(now[:3])
    return {"datetime": now, "date": date, "clock": expiry.clock_state(date), "set": setting,
            "by": "mpremote (the controller is stopped; %s)" % way_back(port)}


def _mpremote(port, wait, *command):
    # `resume`: the board is already at its REPL, and mpremote's own soft reset
    # first would only run boot.py again (and panics the emulated ESP32 under
    # QEMU: docs/boards.md).
    mpremote = str(Path(sys.executable).parent / "mpremote")
    try:
        done = subprocess.run([mpremote, "connect", port, "resume", *command],
                              capture_output=True, text=True, timeout=wait)
    except subprocess.TimeoutExpired:
        raise UthctlError("mpremote %s got no answer from %s within %g s (the controller is "
                          "stopped at the REPL; a slow board may need a longer --timeout)"
                          % (" ".join(command), port, wait)) from None
    if done.returncode:
        raise UthctlError("mpremote %s failed: %s" % (" ".join(command),
                                                     (done.stderr or done.stdout).strip()))
    return done.stdout


def format_clock(reply):
    lines = ["board clock    %04d-%02d-%02d %02d:%02d:%02d" % tuple(reply["datetime"]),
             "state          %s" % STATES.get(reply["clock"], reply["clock"])]
    if "was" in reply:
        lines.append("was            %04d-%02d-%02d %02d:%02d:%02d" % tuple(reply["was"]))
    if reply.get("by"):
        lines.append("%-14s %s" % ("set by" if reply.get("set") else "read by", reply["by"]))
    if reply["clock"] == "unset" and not reply.get("set"):
        lines.append("to set it      uthctl clock --port PORT --set (service mode)")
    return "\n".join(lines)
