# The virtual board: the firmware on the unix-port MicroPython behind a
# pseudo-terminal, with a littlefs image file as its flash (boards/sim/board.py)
# and its pins wired to a loopback socket; its supervisor's shared part, the
# rig port and the flash image's rules are in supervisor.py and flash.py.
#
#   host (mpremote, pyserial, uthctl) <-> pty B  ==relay==  pty A <-> micropython
#
# The host opens pty B's slave (`serial_path`); the interpreter runs on pty
# A's slave and is restarted whenever it exits, as a board soft-resets: "MPY:
# soft reboot\r\n", then main.py from the friendly REPL, or straight back to
# the raw REPL when the reset came from it (mpremote's auto soft-reset). The
# relay turns the unix port's bare "\n" into "\r\n" as a board's console does
# (not inside the raw REPL, whose protocol is binary-clean).
#
# An exit with HARD_RESET_EXIT (machine.reset() on the virtual board) is a
# power cycle instead: input the board had not read is dropped, main.py runs.
#
# Besides the rig's, a loopback listener `wire` for the board's pin connection
# (its address reaches the board in UTH_SIM_WIRE; protocol in
# boards/sim/board.py). A rig's "set" is "applied": false when no controller
# reads the pins (no board, or stopped at the REPL): the level is kept and
# sent when a board connects. "state" says in "board" whether one is wired
# now. The supervisor keeps the pin state: inputs as rigs set them, re-sent
# when a board (re)connects; outputs as the board reports them (all off at
# power off).
import importlib.util
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path

from . import REPO, heaps, sim_build
from .board_source import constant
from .flash import prepare_folder, state_folder
from .seats import sim_expanders
from .sim_pins import INITIAL_LEVELS, INPUTS, SEATS  # noqa: F401 -- others import them here
from .sim_wire import SimWire
from .supervisor import (
    RAW_BANNER,
    Supervisor,
    kill_and_reap,
    listen,
    spawn_with_parent_death,
    write_some,
)
from .vboard_i2c import I2cFaultOps

# The Pico's heap on the 32-bit unix port, plus what the virtual board's own
# boot, littlefs mount, wire and models take (boards/sim/board.py, docs/heap.md).
HEAPSIZE = heaps.sim_heapsize()
SOFT_REBOOT = b"MPY: soft reboot\r\n"
# As a board's _boot.py: the flash at / before any firmware package loads.
BOOT = "import simboot;simboot.boot()"
MAIN = BOOT + ";import main"  # /main.py if one was copied there, else firmware/
_RAW_SWALLOW = 3.0  # longest wait for the raw REPL banner after a raw soft reset
_QUICK_EXIT = 0.5
HARD_RESET_EXIT = constant("HARD_RESET_EXIT")  # machine.reset() (boards/sim/simboot.py)
_BARE_LF = re.compile(rb"(?<!\r)\n")


def seeded_bytes(seed):
    # The sim board's own TEST-ONLY random source (boards/sim/seeded_bytes.py,
    # --test-seed), read from its file, so a test foresees the values drawn.
    spec = importlib.util.spec_from_file_location(
        "seeded_bytes", REPO / "boards" / "sim" / "seeded_bytes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SeededBytes(seed)


def default_flash():
    return state_folder() / "sim-flash.img"


def find_micropython():
    # The unix port beside this Python (the project's .venv), else on PATH.
    here = Path(sys.executable).parent / "micropython"
    if here.exists():
        return str(here)
    found = shutil.which("micropython")
    if found is None:
        raise OSError("no micropython (unix port) found; run `make setup`")
    return found


class VirtualBoard(SimWire, I2cFaultOps, Supervisor):
    title = "virtual board"  # how the interactive table names it
    RIG_OPS = "state, set, press, power, reset, i2c_fault, display_fault, ping"
    EXPANDERS = sim_expanders()

    def __init__(self, flash=None, micropython=None, heapsize=HEAPSIZE, seed=None, repo=REPO,
                 stderr=None, lend_firmware=True, clock_rate=None):
        self._given = Path(flash or default_flash())
        super().__init__(self._given.resolve(), stderr)
        self.micropython = micropython or find_micropython()
        self.heapsize = heapsize
        self.seed = seed  # TEST ONLY: the board's deterministic random source
        self.repo = Path(repo)
        if not (self.repo / "firmware" / "main.py").is_file():
            raise OSError("no firmware/main.py under %s: the virtual board runs from a "
                          "checkout of the repository" % self.repo)
        # False: a bare board that runs only what is deployed to its flash
        # (/lib, /main.py), as a board with stock MicroPython and no frozen firmware.
        self.lend_firmware = lend_firmware
        # For soaks only: the controller's clock this many times the host's
        # (boards/sim/fastclock.py); None, the system clock as on a board.
        self.clock_rate = clock_rate
        self.wire_address = None
        self._build = None  # (firmware, board modules): the sim build, found at the first boot

    # ---- life cycle ----

    def _prepare_flash(self):
        if self._given.is_symlink() and not self._given.exists():
            raise OSError("flash %s is a symbolic link to nothing; give an image file"
                          % self._given)
        prepare_folder(self.flash, default_flash())

    def _make_image(self, flash):
        # Blank and formatted as the board's own boot makes it (simboot.py),
        # here so that the supervisor can lock it before any board runs.
        env = dict(os.environ, MICROPYPATH=str(self.repo / "boards" / "sim"))
        done = subprocess.run([self.micropython, "-c", "import simboot;simboot.new_image(%r)"
                               % str(flash)], env=env, umask=0o077, capture_output=True,
                              text=True, timeout=60)
        if done.returncode != 0 or not flash.is_file():
            reason = (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]
            raise OSError("cannot make flash image %s: %s" % (flash, reason))

    def _open(self):
        self._workdir = tempfile.mkdtemp(prefix="uth-vboard-")
        self._master_a, self._slave_a = pty.openpty()
        self._master_b, self._slave_b = pty.openpty()
        # The interpreter reads a pipe, not the pty: its REPL switches a terminal's
        # mode with TCSAFLUSH, which drops what the host sent ahead (mpremote's
        # Ctrl-A right after its Ctrl-C); a board's USB serial drops nothing.
        self._board_stdin, self._board_input = os.pipe()
        os.set_blocking(self._board_input, False)
        for fd in (self._slave_a, self._slave_b):
            tty.setraw(fd)  # no echo, no signals, no newline translation
        for fd in (self._master_a, self._master_b):
            os.set_blocking(fd, False)
        self._wire_listener = listen()
        self.wire_address = "127.0.0.1:%d" % self._wire_listener.getsockname()[1]
        self._start_io("vboard", self._master_b, os.ttyname(self._slave_b),
                       [(self._master_a, "board_out"), (self._wire_listener, "wire_accept")])

    def _listeners(self):
        return [self._wire_listener]

    def _ptys(self):
        return (self._master_a, self._slave_a, self._master_b, self._slave_b,
                self._board_stdin, self._board_input)

    # ---- state (I/O thread) ----

    def _reset_state(self):
        super()._reset_state()
        self._after_cr = False
        self._swallow = None  # (deadline, bytes so far) after a raw soft reset
        self._spawned_at = 0.0
        self._quick_exits = 0
        self._respawn_at = None
        self._respawn_main = True
        self._board = None  # the board's wire connection
        self._reset_faults()
        self._levels = dict(INITIAL_LEVELS)
        self._lights = {"betlight": [0] * SEATS, "jackpot": [0] * SEATS}
        self._display = None

    def _state(self):
        return {"ok": True, "bet_lights": list(self._lights["betlight"]),
                "jackpot_lights": list(self._lights["jackpot"]), "display": self._display,
                "inputs": dict(self._levels), "board": self._board is not None,
                "powered": self._powered, "boots": self._boots,
                "repl": "raw" if self._raw else "friendly",
                "pid": self._proc.pid if self._proc is not None and self._proc.poll() is None
                else None}

    # ---- the interpreter ----

    def _environment(self):
        env = dict(os.environ)
        # As a board's sys.path: the working folder (/), the frozen
        # modules (asyncio), then the firmware's build (unless bare) and this
        # board's own modules; simboot adds /lib on the flash last.
        if self._build is None:  # once: every source hashed to find it
            self._build = sim_build.compiled(self.repo)
        firmware, board_modules = self._build
        lent = [firmware] if self.lend_firmware else []
        env["MICROPYPATH"] = os.pathsep.join(
            [".frozen"] + [str(p) for p in lent + [board_modules]])
        env["UTH_SIM_FLASH"] = str(self.flash)
        env["UTH_SIM_RTC"] = os.path.join(self._workdir, "rtc")  # the clock outlives a reset
        env["UTH_SIM_WIRE"] = self.wire_address
        env.pop("UTH_SIM_SEED", None)
        if self.seed is not None:
            env["UTH_SIM_SEED"] = str(int(self.seed))
        env.pop("UTH_SIM_RATE", None)
        if self.clock_rate is not None:
            env["UTH_SIM_RATE"] = str(int(self.clock_rate))
        return env

    def _spawn(self, run_main):
        command = [self.micropython, "-X", "heapsize=" + self.heapsize, "-i", "-c",
                   MAIN if run_main else BOOT]
        # umask 077: an image it makes is the owner's from its first byte.
        self._proc = spawn_with_parent_death(
            command, stdin=self._board_stdin, stdout=self._slave_a, stderr=self._slave_a,
            cwd=self._workdir, env=self._environment(), close_fds=True,
            start_new_session=True, umask=0o077)
        self._spawned_at = time.monotonic()
        self._boots += 1
        self._raw = False
        self._tail = b""
        if not run_main:
            # Back into the raw REPL, as a board that soft-resets from it;
            # its friendly banner is not shown (a board prints none there).
            self._board_in = b"\x01" + self._board_in
            self._swallow = (time.monotonic() + _RAW_SWALLOW, b"")
            self._feed_board()

    def _kill(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return
        kill_and_reap(proc)

    def _start(self):
        self._quick_exits = 0
        self._spawn(run_main=True)

    def _power_off(self):
        self._kill()
        self._drop_unread()
        self._powered = False
        self._respawn_at = None
        self._raw = False
        self._swallow = None
        self._board_in = b""
        self._lights = {"betlight": [0] * SEATS, "jackpot": [0] * SEATS}
        self._display = None
        self._drop_board()
        return True  # (an I2C fault stays: vboard_i2c.py)

    def _check_exit(self):
        self._check_died()
        self._check_respawn()

    def _check_died(self):
        if self._proc is None or self._proc.poll() is None:
            return
        self._read_board(drain=True)
        lasted = time.monotonic() - self._spawned_at
        code, self._proc = self._proc.returncode, None
        if code == HARD_RESET_EXIT:
            self._hard_reset()
            return
        # A soft reset: the same mode the REPL was in (main.py from friendly).
        self._quick_exits = self._quick_exits + 1 if lasted < _QUICK_EXIT else 0
        delay = 1.0 if self._quick_exits >= 3 else 0.0  # a crash loop, not resets
        self._respawn_main = not self._raw
        self._respawn_at = time.monotonic() + delay
        self._to_host(SOFT_REBOOT)

    def _check_respawn(self):
        if self._respawn_at is not None and time.monotonic() >= self._respawn_at:
            self._respawn_at = None
            if self._powered:
                self._spawn(self._respawn_main)

    # ---- the serial relay ----

    _READ_SIZE = 4096

    def _board_fd(self):
        return self._master_a

    def _from_board(self, data):
        if self._swallow is not None:
            deadline, held = self._swallow
            held += data
            start = held.find(RAW_BANNER)
            if start < 0 and time.monotonic() < deadline:
                self._swallow = (deadline, held[-4096:])
                return
            self._swallow = None
            if start >= 0:
                before = held[:start]  # boot errors are shown; the friendly banner is not
                banner = before.find(b"MicroPython ")
                data = (before[:banner] if banner >= 0 else before) + held[start:]
            else:
                data = held
        was_raw = self._track_mode(data)
        if not (was_raw and self._raw):
            data = self._crlf(data)
            self._watch_start(data)
        else:
            self._after_cr = data.endswith(b"\r")
        self._to_host(data)

    def _crlf(self, data):
        if self._after_cr and data.startswith(b"\n"):
            data = data[1:]
            head = b"\n"
        else:
            head = b""
        self._after_cr = data.endswith(b"\r") if data else self._after_cr
        return head + _BARE_LF.sub(b"\r\n", data)

    def _taking_input(self):
        return self._powered

    def _feed_board(self):
        self._board_in = write_some(self._board_input, self._board_in)

    def _drop_unread(self):
        # What the board had not read, once no interpreter holds the pipe (a
        # non-blocking read end would be the next interpreter's too).
        os.set_blocking(self._board_stdin, False)
        try:
            while os.read(self._board_stdin, 65536):
                pass
        except BlockingIOError:
            pass
        finally:
            os.set_blocking(self._board_stdin, True)


    def _tick(self):
        if self._swallow is not None and time.monotonic() >= self._swallow[0]:
            self._from_board(b"")

    # ---- pins ----

    def _ready(self, tag):
        if tag != "wire_accept":
            return super()._ready(tag)  # raises: no such descriptor
        conn = self._accept(self._wire_listener, "board")
        if conn is not None:
            self._drop_board()  # a board wires itself again after its restart
            self._board = conn

    def _display_line(self, name, value):
        if name != "display":
            return False
        self._display = value
        return True

    def _press_wait(self, ms):
        # A soak's board counts its clock rate times faster than the host's.
        return ms / 1000 / (self.clock_rate or 1)
