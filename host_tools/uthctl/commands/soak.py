# uthctl soak: many rounds with random seats through a board's rig, the
# host's own record of every event reconciled with the board's meters after
# every hit, the board's log exported as it goes and audited from record 1
# at the end (soak/). It prints its figures: rounds per second and every
# difference, which should be none; exit 1 on any.
#
#   --board sim          a virtual board of its own on a new flash, its clock
#                        --clock-rate times the host's (boards/sim/fastclock.py)
#   --board rp2040_pico  an emulated Pico of its own on a new flash, the
#                        project deployed from --deploy BUILD (make build)
#   --port PTY --rig ADDRESS   a board already running, with its rig
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..errors import UthctlError, expecting
from ..links.board_link import Link
from ..links.rig import Rig
from ..soak.dealer import SoakError
from ..soak.run import EXPORT_EVERY, soak
from .progress import Progress

CLOCK_RATE = 30  # the virtual board's clock for a soak, this many times the host's
PICO_STRETCH = 6.0  # the emulator runs at about half the chip's speed, less under load


def add_parser(sub):
    parser = sub.add_parser(
        "soak", help="play many random rounds through the rig; reconcile and audit",
        description="Plays rounds with chips on 1-6 random seats through the rig, keeps the "
        "host's record of every event, reconciles it with the board's meters after every "
        "hit, exports the board's log as it goes and audits it from record 1. Exit 1 on any "
        "difference.")
    parser.add_argument("--board", choices=("sim", "rp2040_pico"),
                        help="start a board of its own on a new flash (default: sim, unless "
                        "--port is given)")
    parser.add_argument("--port", metavar="PORT", help="a running board's serial port")
    parser.add_argument("--rig", metavar="ADDRESS", help="with --port: its rig")
    parser.add_argument("--rounds", type=int, default=1000, metavar="N",
                        help="rounds to play (default 1000)")
    parser.add_argument("--seed", type=int, metavar="S",
                        help="the seats' random choice (default: from the time)")
    parser.add_argument("--config", default="A1", help="a new board's Mystery configuration")
    parser.add_argument("--out", metavar="DIR", default="soak",
                        help="where the joined log exports and soak.json go (default ./soak)")
    parser.add_argument("--export-every", type=int, default=EXPORT_EVERY, metavar="N",
                        help="rounds between log exports (the board keeps 256 records)")
    parser.add_argument("--clock-rate", type=int, default=CLOCK_RATE, metavar="N",
                        help="--board sim: its clock N times the host's (default %d)"
                        % CLOCK_RATE)
    parser.add_argument("--deploy", metavar="BUILD",
                        help="--board rp2040_pico: the board's build folder to deploy "
                        "(build/rp2040_pico)")
    parser.add_argument("--test-seed", type=int, metavar="N",
                        help="TEST ONLY, --board sim: the board's seeded random source")
    return parser


@expecting(OSError, SoakError)
def run(args):
    """uthctl soak: play many random rounds through the rig; reconcile and audit."""
    if args.rounds < 1 or args.export_every < 1 or args.clock_rate < 1:
        raise UthctlError("--rounds, --export-every and --clock-rate must be 1 or more")
    seed = args.seed if args.seed is not None else int(time.time())
    if args.port:
        if args.board or not args.rig:
            raise UthctlError("--port takes --rig and no --board")
        figures = _play(args, args.port, args.rig, seed, 1.0, {"board": args.port})
    else:
        figures = _on_own_board(args, seed)
    print(json.dumps(figures) if args.json else text(figures))
    return 0 if figures["ok"] else 1


def _on_own_board(args, seed):
    with tempfile.TemporaryDirectory(prefix="uth-soak-") as folder:
        flash = Path(folder) / "flash.img"
        if args.board == "rp2040_pico":
            board = _pico(args, flash)
            stretch = PICO_STRETCH
        else:
            from ..boards.virtual import VirtualBoard

            board = VirtualBoard(flash=flash, seed=args.test_seed,
                                 clock_rate=args.clock_rate).start()
            stretch = 1.0
        try:
            if board.wait_started(60.0 * stretch)["state"] is None:
                raise UthctlError("the board did not come up")
            about = {"board": args.board or "sim"}
            if about["board"] == "sim":
                about["clock_rate"] = args.clock_rate
            return _play(args, board.serial_path, board.rig_address, seed, stretch, about)
        finally:
            board.stop()


def _pico(args, flash):
    from ..boards.pico import PicoBoard

    if not args.deploy:
        raise UthctlError("--board rp2040_pico needs --deploy BUILD (make build's "
                          "build/rp2040_pico): a new flash holds no project")
    build = Path(args.deploy)
    if not (build / "main.py").is_file():
        raise UthctlError("--deploy %s: no main.py there; run make build" % build)
    board = PicoBoard(flash=flash, image="official").start()  # the .mpy build onto it
    if board.wait_started(120.0)["state"] != "repl":  # a new flash: MicroPython's REPL
        board.stop()
        raise UthctlError("the emulated Pico did not come up at its REPL")
    boots = board.state()["boots"]
    done = subprocess.run([str(Path(sys.executable).parent / "mpremote"), "connect",
                           board.serial_path, "cp", "-r", str(build / "lib"), ":", "+",
                           "cp", str(build / "main.py"), ":main.py", "+", "reset"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        board.stop()
        raise UthctlError("deploying %s failed: %s" % (build, done.stderr.strip()[-300:]))
    deadline = time.monotonic() + 120
    while not (board.state()["boots"] > boots and board.state()["powered"]):
        if time.monotonic() > deadline:
            board.stop()
            raise UthctlError("the emulated Pico did not restart after the deploy")
        time.sleep(0.2)
    return board


def _play(args, port, rig_address, seed, stretch, about):
    progress = Progress("soak", unit="round")
    poll = 0.001 if stretch == 1.0 else 0.05
    try:
        with Link(port, timeout=10.0 * stretch) as link, Rig(rig_address,
                                                             timeout=10.0 * stretch) as rig:
            link.wait_ready(30.0 * stretch)
            return soak(link, rig, args.rounds, seed, args.out, config=args.config,
                        export_every=args.export_every, poll=poll, stretch=stretch,
                        progress=lambda done: progress(done, args.rounds), about=about)
    finally:
        progress.close()


def text(f):
    lines = ["soak: %d rounds, %d hits in %.1f s: %s rounds/s%s" % (
        f["rounds"], f["hits"], f["seconds"], f["rounds_per_second"],
        " (virtual board, clock x%d)" % f["clock_rate"] if f.get("clock_rate") else "")]
    lines.append("events  " + ", ".join("%s %d" % item for item in f["events"].items()))
    lines.append("totals  " + ", ".join("%s %s" % item for item in f["totals"].items()))
    lines.append("log     %d records in %d exports joined, %s" % (f["records"], f["exports"],
                                                                  f["log"]))
    audit = f["audit"]
    lines.append("audit   %s" % ("none" if audit is None else "%s from %s, %d records" % (
        "PASSED" if audit["ok"] else "FAILED",
        "record 1" if audit["from_genesis"] else "a later record", audit["records"])))
    lines.append("settled %d rounds' side wagers on the board, each as the host settles it"
                 % f.get("settled", 0))
    lines.append("seats   seed %d" % f["seed"])
    if f["differences"]:
        lines.append("DIFFERENCES %d:" % len(f["differences"]))
        lines += ["  " + text for text in f["differences"][:50]]
    else:
        lines.append("no difference")
    return "\n".join(lines)
