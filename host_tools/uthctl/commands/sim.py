# uthctl sim: the virtual table, the firmware on the unix-port MicroPython
# behind a pseudo-terminal (boards/virtual.py), played in this terminal (tui/:
# seats, lights, the LED meter, meters and events; `make sim`). --headless
# runs the board alone and, once it has come up, prints one JSON line,
# {"serial": PTY, "rig": "127.0.0.1:PORT", "flash": FILE, "state": STATE,
#  "fault": REASON or null}, STATE being the controller's at start ("fault"
# when its flash does not mount, "repl" when no firmware ran, null when it
# did not come up in time), then runs until SIGTERM or SIGINT; mpremote,
# `uthctl meters --port PTY` and `uthctl rig --sim ADDRESS` drive it from
# there. --bare lends the board no firmware: it runs what
# `make deploy BOARD=sim PORT=PTY` copies to its flash. A flash image another
# `uthctl sim` runs, or a folder, is refused with one line (exit 2).
#
# --board rp2040_pico runs the emulated Pico instead (boards/pico.py), the
# same JSON line and rig: by default the project's image (`make image`), the
# controller frozen in, so a new flash starts the controller; --image official
# runs the official MicroPython image, whose flash holds only what
# `make deploy BOARD=rp2040_pico PORT=PTY` copied there (a new flash boots to
# the REPL, "state": "repl").
#
# --board esp32_devkitc runs the emulated ESP32 (boards/esp32.py): MicroPython's
# official ESP32_GENERIC image on QEMU's ESP32 machine, its 16 MB flash file made
# when missing with the controller's .mpy build and the bus stand-ins in its
# littlefs (boards/esp32_flash.py), the same JSON line and rig. It comes up
# in one to three minutes (QEMU's flash is slow).
#
# --port PORT starts no board: the interactive table attaches to one already
# running there (a real board's device, the virtual board's or the emulated
# Pico's pty, or `auto`), taking the port as mpremote does, exclusively, and
# never sending Ctrl-C. It shows what the board reports and offers the host
# link's commands; --rig ADDRESS (a virtual board's or an emulated Pico's rig)
# adds the lights, the chips, LOCK, the key, and reset and power.
import json
import signal
import sys
import threading
import time

from ..boards.virtual import VirtualBoard, default_flash
from ..errors import UthctlError, expecting

STARTED_WAIT = 20.0  # seconds for the board to come up before its line is printed
BOARDS = ("sim", "rp2040_pico", "esp32_devkitc")
EMULATED = ("rp2040_pico", "esp32_devkitc")


def add_parser(sub):
    parser = sub.add_parser("sim", help="run the virtual table (firmware on the unix port)")
    parser.add_argument("--port", metavar="PORT",
                        help="attach the interactive table to a board already running at PORT "
                        "(its serial device, a virtual board's or emulated Pico's pty, or "
                        "'auto'); starts no board")
    parser.add_argument("--rig", metavar="ADDRESS",
                        help="with --port: the board's rig (HOST:PORT of a virtual board's or "
                        "emulated Pico's rig), for the lights, chips, LOCK, key, reset, power")
    parser.add_argument("--board", choices=BOARDS, default="sim",
                        help="sim: the firmware on the unix port (default); rp2040_pico: "
                        "a MicroPython image on an emulated RP2040 (node); esp32_devkitc: "
                        "the official ESP32 image on QEMU's ESP32 machine")
    parser.add_argument("--image", choices=("project", "official"),
                        help="with --board rp2040_pico: project, the controller frozen into "
                        "the project's image (make image; the default), or official, the "
                        "official MicroPython image that make deploy copies the build onto")
    parser.add_argument("--headless", action="store_true",
                        help="print the serial and rig addresses as one JSON line, then run "
                        "until SIGTERM/SIGINT")
    parser.add_argument("--flash", metavar="FILE",
                        help="the board's flash image, made when missing (for the owner "
                        "only) and never reformatted; one board at a time (default %s)"
                        % default_flash())
    parser.add_argument("--micropython", metavar="PATH",
                        help="the unix-port interpreter (default: the one beside this Python)")
    parser.add_argument("--bare", action="store_true",
                        help="with --headless: lend the board no firmware, so it runs only "
                        "what is deployed to its flash (make deploy BOARD=sim PORT=PTY)")
    parser.add_argument("--test-seed", type=int, metavar="N",
                        help="TEST ONLY: a deterministic random source, so hit values are "
                        "predictable; never for play")
    return parser


@expecting(OSError)
def run(args):
    """uthctl sim: run the virtual table (firmware on the unix port)."""
    if args.port is not None:
        return run_attached(args)
    if args.rig is not None:
        raise UthctlError("--rig is for --port: the table this command starts has its own rig")
    if args.board in EMULATED:
        for flag, given in (("--bare", args.bare), ("--micropython", args.micropython),
                            ("--test-seed", args.test_seed is not None)):
            if given:
                raise UthctlError("%s is for the virtual board; the emulated boards run "
                                  "their image and what is on their flash" % flag)
    if args.image is not None and args.board != "rp2040_pico":
        raise UthctlError("--image is for --board rp2040_pico")
    if not args.headless:
        if args.bare:
            raise UthctlError("--bare needs --headless: a bare board has no table to show "
                              "until the firmware is deployed to it")
        return run_interactive(args)
    return run_headless(args)


def run_interactive(args):
    # The table in this terminal (tui/): seats, lights, the LED meter, the
    # meters and the event stream; keys for chips, LOCK and the key switch.
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UthctlError("the interactive table needs a terminal; for scripts run: "
                          "uthctl sim --headless")
    from ..tui import app as tui  # curses is loaded only for the interactive table

    if args.board in EMULATED:
        return tui.run(board=_emulated(args))
    return tui.run(flash=args.flash, micropython=args.micropython, seed=args.test_seed)


def run_attached(args):
    # Another program's board: nothing here may start or configure it.
    for flag, given in (("--headless", args.headless), ("--bare", args.bare),
                        ("--flash", args.flash), ("--micropython", args.micropython),
                        ("--test-seed", args.test_seed is not None),
                        ("--board", args.board != "sim"), ("--image", args.image is not None)):
        if given:
            raise UthctlError("%s starts a board; --port attaches to one already running"
                              % flag)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UthctlError("the interactive table needs a terminal; for scripts: "
                          "uthctl monitor --port PORT")
    from ..tui import app as tui

    return tui.run_attached(args.port, args.rig)


def _emulated(args):
    if args.board == "esp32_devkitc":
        from ..boards.esp32 import Esp32Board  # QEMU is looked for only when asked for

        return Esp32Board(flash=args.flash)
    from ..boards.pico import PicoBoard  # node is looked for only when asked for

    return PicoBoard(flash=args.flash, image=args.image or "project")


def run_headless(args):
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    if args.board in EMULATED:
        board = _emulated(args)
    else:
        board = VirtualBoard(flash=args.flash, micropython=args.micropython,
                             seed=args.test_seed, lend_firmware=not args.bare)
    board.start()
    try:
        if args.test_seed is not None:
            print("uthctl sim: TEST SEED %d: hit values are predictable" % args.test_seed,
                  file=sys.stderr)
        came = _came_up(board, stop)
        print(json.dumps({"serial": board.serial_path, "rig": board.rig_address,
                          "flash": str(board.flash), "state": came["state"],
                          "fault": came["fault"]}), flush=True)
        while not stop.wait(0.2):
            if not board.alive():
                raise UthctlError("the board's supervisor stopped: %s" % board.failure)
    finally:
        board.stop()
    return 0


def _came_up(board, stop):
    # How the board came up (VirtualBoard.wait_started), unless stopped first.
    deadline = time.monotonic() + getattr(board, "HEADLESS_WAIT", STARTED_WAIT)
    while True:
        came = board.wait_started(0.2)
        if came["state"] is not None or stop.is_set() or time.monotonic() > deadline:
            return came
