# The emulated Pico's supervisor: a MicroPython rp2 image (the project's own,
# or the official one; pico_image.py) on an emulated RP2040
# (host_tools/pico_emu/emulator.mjs, rp2040js under node),
# with the same face as the virtual board (virtual.py; what they share is
# supervisor.py's), so a host tool or a test drives either the same way:
#
#   host (mpremote, uthctl) <-> pty  ==relay==  node's stdin/stdout (USB CDC)
#
# `serial_path` is the pty's slave and lives as long as the supervisor; each
# power-on is one node process on the same flash image, so a power cycle, a
# `reset` and the firmware's machine.reset() (which wedges stock rp2040js:
# the emulator exits 75 when the watchdog fires) all restart the emulation on
# its saved flash.
#
# The rig port speaks rig_port.py's JSON lines, mapped to the pins of
# boards/rp2040_pico/board.py (pico_image.wiring):
#   set bet1..7, uth1..7, lock, key: 1 = chip present / pressed / turned,
#       which pulls the pin low (the seats' on the MCP23017 models,
#       pico_expanders.py); 0 releases it to its pull-up. Answered "applied":
#       true once the chip has run two controller ticks (10 ms) with the
#       level, whatever it runs (the pins are always wired: the serial port
#       tells whether a controller reads them); false while it is off (the
#       level is kept for the next power-on).
#   state: bet_lights, jackpot_lights (the expanders' outputs), display (the
#       text the MAX7219 lights, decoded from SPI0 by max7219_model), and
#       display_segments, inputs, powered, boots, repl, pid, flash_ops
#       {"erase", "program"} of this power-on and flash_bytes (the bytes
#       those operations covered), inputs_ns (each input's last level change
#       on the chip's clock, ns since power-on), cut (how the last one ended
#       at an armed cut, else null), chip_speed (the chip's seconds per wall
#       second over the last second: 0.4 is a chip at 0.4x real time) and
#       chip_behind_s (how far its clock is behind the wall's since power-on;
#       both null until its first second)
#   press: as the virtual board's, the hold timed on the chip's clock
#   power, reset, ping as the virtual board's; and
#   {"op": "cut", "at": N, "mode": "before" | "partial"}: the next power-on
#       stops at its N-th flash operation (emulator.mjs says what each does)
#   {"op": "time"} -> {"ok": true, "emulated_ns": N, "cycles": N}: the
#       chip's clock since this power-on (125 MHz instruction cycles)
#   {"op": "throttle", "share": F}: from now on (and at later power-ons) the
#       chip runs at most F (0.01 to 1) of real time, a host slowed on purpose
#   {"op": "gpio", ...}: any GPIO read or driven by number (pico_gpio.py)
#   {"op": "i2c_fault", ...}: the expanders stop answering (pico_expanders.py)
#   {"op": "expander", ...}: any expander pin read or driven (pico_expanders.py)
# wiring (pico_image.wiring's form) may name other expanders and inputs: the
# test rig's Pico has one expander of its own and no seats.
#
# The flash image is the littlefs region of the Pico's flash (1408 KiB),
# written through at every erase and program, so killing the emulator is a
# power cut at that instant. Made 0600 when missing, locked as flash.py
# locks every board's (one supervisor an image); node dies with the thread
# that spawned it, the I/O thread (supervisor.spawn_with_parent_death).
import os
import selectors
import socket
import subprocess
import time
from pathlib import Path

from . import pico_image
from .emulated import EmulatedBoard
from .flash import prepare_folder, state_folder
from .max7219_model import Max7219
from .pico_expanders import ExpanderOps, initial_levels, light_places, no_faults
from .pico_gpio import GpioOps
from .seats import pico_seats
from .supervisor import kill_and_reap, spawn_with_parent_death, write_some

FS_SIZE = 1408 * 1024
EXIT_CUT = 3
EXIT_REBOOT = 75
CUT_MODES = ("before", "partial")
SEATS = pico_seats()  # boards/rp2040_pico/board.py wires them


def default_pico_flash():
    return state_folder() / "pico-flash.img"


def _erased_image(path):
    # A new image is an erased chip (the firmware makes its littlefs at first
    # boot), the owner's only from its first byte.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as image:
        image.write(b"\xff" * FS_SIZE)


def _throttle(value):
    if value is None:
        return None
    value = float(value)
    if not 0.01 <= value <= 1:
        raise ValueError("throttle is the chip's share of real time, 0.01 to 1, not %r" % value)
    return value


class PicoBoard(ExpanderOps, GpioOps, EmulatedBoard):
    title = "emulated Pico"  # how the interactive table names it
    _NAME, _LOG = "pico", "emulator.log"  # its reports' name, its process's log
    RIG_OPS = ("state, set, press, power, reset, cut, time, throttle, gpio, i2c_fault, expander, "
               "ping")
    _START_TIMEOUT = 60.0
    # The official image imports the .mpy build from flash and hashes it for
    # the program check before `started`: past sim's 20 s on a busy machine.
    HEADLESS_WAIT = _START_TIMEOUT  # uthctl sim --headless waits this long for its line
    _START_POLL = 0.05
    # A level is applied within a few seconds at any lag the emulator is held to
    # (emulator.mjs keeps a burst's spacing only); late beats "applied": false.
    _APPLY_TIMEOUT = 20.0

    def __init__(self, flash=None, realtime=True, stderr=None, cut_at=None, cut_mode="before",
                 wiring=None, throttle=None, image=pico_image.PROJECT):
        super().__init__(Path(flash or default_pico_flash()).resolve(), stderr)
        # Emulated time kept with the wall clock (a rig's press lasts as long
        # on the chip's clock); False lets sleeps cost no wall time.
        self.realtime = realtime
        # The chip held to at most this fraction of real time (a slow host
        # on purpose); None: as fast as the host runs it.
        self.throttle = _throttle(throttle)
        self.node = pico_image.find_node()
        self.image = image  # "project": the controller frozen in; "official": .mpy deployed
        self.firmware = pico_image.firmware(image)
        self.bootrom = pico_image.bootrom()
        self.wiring = wiring or pico_image.wiring()
        self._input_of = {gpio: name for name, gpio in self.wiring["inputs"].items()}
        self._light_places, self._i2c_faults = light_places(self.wiring), no_faults()
        self._cut = None
        if cut_at is not None:
            self._arm_cut(cut_at, cut_mode)  # the first power-on's

    # ---- life cycle ----

    def _prepare_flash(self):
        prepare_folder(self.flash, default_pico_flash())

    def _make_image(self, flash):
        _erased_image(flash)

    def _check_flash(self):
        size = self.flash.stat().st_size
        if size != FS_SIZE:
            raise OSError("flash %s is %d bytes, not a Pico filesystem image (%d bytes)"
                          % (self.flash, size, FS_SIZE))

    def _open(self):
        self._open_pty("pico")

    def arm_cut(self, at, mode="before"):
        # The next power-on stops at its at-th flash operation (1-based).
        return self._call(lambda: self._arm_cut(at, mode))

    # ---- state (I/O thread) ----

    def _reset_state(self):
        super()._reset_state()
        self._ctl = None
        self._ctl_buf = b""
        self._levels = initial_levels(self.wiring)
        self._lights = {"bet_lights": [0] * SEATS, "jackpot_lights": [0] * SEATS}
        self._xout = {}  # each expander's output pins, as its last transaction left them
        self._display = Max7219()
        self._ops = {"erase": 0, "program": 0}
        self._bytes = {"erase": 0, "program": 0}
        self._inputs_ns = {}
        self._ended_by_cut = None
        self._time_asked = []  # rig connections waiting on the chip (time, gpio), in order
        self._speed = None  # the chip's clock against the wall's: (ratio, seconds behind)
        self._speed_at = None  # (wall, chip seconds since power-on) at the last speed line

    def _state(self):
        return dict(self._chip_state("bet_lights", "jackpot_lights", self._proc is not None),
                    flash_ops=dict(self._ops), flash_bytes=dict(self._bytes),
                    inputs_ns=dict(self._inputs_ns), cut=self._ended_by_cut,
                    chip_speed=self._speed and self._speed[0],
                    chip_behind_s=self._speed and self._speed[1])

    def _arm_cut(self, at, mode):
        if type(at) is not int or at < 1:
            raise ValueError("cut: at is a flash operation number from 1")
        if mode not in CUT_MODES:
            raise ValueError("cut: mode is one of %s" % ", ".join(CUT_MODES))
        self._cut = (at, mode)
        return True

    # ---- the emulator process ----

    def _command(self):
        wiring = self.wiring
        low = [wiring["inputs"][name] for name, level in self._levels.items()
               if level and name in wiring["inputs"]]
        command = [self.node, str(pico_image.EMULATOR), "--firmware", str(self.firmware),
                   "--bootrom", str(self.bootrom), "--flash", str(self.flash),
                   "--control-fd", str(self._ctl_child.fileno()),
                   "--cs", str(wiring["cs"]), "--spi", str(wiring["spi"])]
        command += self._expander_args(self._levels)
        if low:
            command += ["--low", ",".join(map(str, low))]
        if self.realtime:
            command.append("--realtime")
        if self.throttle is not None:
            command += ["--throttle", repr(self.throttle)]
        if self._cut:
            command += ["--cut-at", str(self._cut[0]), "--cut-mode", self._cut[1]]
        return command

    def _spawn(self):
        self._ctl, self._ctl_child = socket.socketpair()
        log = open(os.path.join(self._workdir, "emulator.log"), "ab")
        try:
            self._proc = spawn_with_parent_death(
                self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                cwd=self._workdir, pass_fds=(self._ctl_child.fileno(),),
                start_new_session=True, umask=0o077)
        finally:
            log.close()
            self._ctl_child.close()
        self._cut = None  # armed for one power-on
        self.powered_at = time.monotonic()  # the chip's clock starts after this
        for fd in (self._proc.stdin.fileno(), self._proc.stdout.fileno()):
            os.set_blocking(fd, False)
        self._ctl.setblocking(False)
        self._selector.register(self._proc.stdout, selectors.EVENT_READ, "board_out")
        self._selector.register(self._ctl, selectors.EVENT_READ, "ctl")
        self._boots += 1
        self._raw = False
        self._tail = b""
        self._ops = {"erase": 0, "program": 0}
        self._bytes = {"erase": 0, "program": 0}
        self._inputs_ns = {}
        self._ended_by_cut = None
        self._speed = self._speed_at = None
        self._display = Max7219()

    def _kill(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        kill_and_reap(proc)
        for item in (proc.stdout, self._ctl):
            try:
                self._selector.unregister(item)
            except (KeyError, ValueError):
                pass
        self._read_ctl(drain=True)
        for item in (proc.stdin, proc.stdout, self._ctl):
            try:
                item.close()
            except OSError:
                pass
        self._ctl = None
        self._unapplied()
        for conn in self._time_asked:
            self._reply(conn, {"ok": False, "error": "the board went off"})
        self._time_asked = []
        self._lights = {"bet_lights": [0] * SEATS, "jackpot_lights": [0] * SEATS}
        self._xout = {}
        self._display = Max7219()
        self._board_in = b""
        return proc.returncode

    def _start(self):
        self._spawn()

    def _power_off(self):
        changed = self._powered
        self._kill()
        self._powered = False
        return changed

    def _check_exit(self):
        if self._proc is None or self._proc.poll() is None:
            return
        self._read_board(drain=True)
        code = self._kill()
        if code == EXIT_REBOOT:  # machine.reset(): the board comes straight back
            self._powered = False
            self._power_on()
        elif code == EXIT_CUT:
            self._powered = False  # the power was cut; it stays off until switched on
        else:
            self._powered = False
            self._report("the emulator exited with %s; its log:\n%s" % (code, self._log_tail()))

    # ---- the serial relay ----

    def _feed_board(self):
        if self._proc is not None and self._board_in:
            self._board_in = write_some(self._proc.stdin.fileno(), self._board_in)

    # ---- the emulator's control lines ----

    def _read_ctl(self, drain=False):
        if self._ctl is None:
            return
        while True:
            try:
                data = self._ctl.recv(65536)
            except (BlockingIOError, OSError):
                return
            if not data:
                return
            *lines, self._ctl_buf = (self._ctl_buf + data).split(b"\n")
            for line in lines:
                self._ctl_line(line.decode(errors="replace").split())
            if not drain:
                return

    def _ctl_line(self, words):
        if not words:
            return
        kind, args = words[0], words[1:]
        if kind == "xout" and len(args) == 2:
            self._expander_outputs(int(args[0]), int(args[1]))
        elif kind == "xlevel" and len(args) == 3:
            self._expander_input_ns(int(args[0]), int(args[1]), int(args[2]))
        elif kind == "spi" and len(args) == 2:
            self._display.write(int(args[0]), int(args[1]))
        elif kind == "level" and len(args) == 2:
            name = self._input_of.get(int(args[0]))
            if name is not None:
                self._inputs_ns[name] = int(args[1])
        elif kind == "flash" and len(args) == 5:
            self._ops = {"erase": int(args[3]), "program": int(args[4])}
            if args[0] in self._bytes:
                self._bytes[args[0]] += int(args[2])
        elif kind == "cut" and len(args) == 3:
            self._ops[args[2]] += 1
            self._ended_by_cut = {"at": int(args[0]), "mode": args[1], "kind": args[2]}
        elif kind == "time" and len(args) == 2 and self._time_asked:
            conn = self._time_asked.pop(0)
            self._reply(conn, {"ok": True, "emulated_ns": int(args[0]), "cycles": int(args[1])})
        elif kind == "gpio" and len(args) == 3 and self._time_asked:
            self._gpio_read(self._time_asked.pop(0), args)
        elif kind == "speed" and len(args) == 2:
            self._speed = (float(args[0]), float(args[1]))
            wall = time.monotonic()
            self._speed_at = (wall, wall - self.powered_at - self._speed[1])
        elif kind == "applied" and args and args[0].isdigit():
            self._applied(int(args[0]))

    # ---- the rig ----

    def _rig_request(self, conn, request):
        op = request.get("op")
        if op == "time":
            self._ask_time(conn)
        elif op == "gpio":
            self._gpio(conn, request)
        elif op == "i2c_fault":
            self._i2c_fault(conn, request)
        elif op == "expander":
            self._expander_pin(conn, request)
        elif op == "throttle":
            self._set_throttle(request.get("share"))
            self._reply(conn, {"ok": True, "share": self.throttle})
        elif op == "cut":
            self._reply(conn, {"ok": True, "armed": self._arm_cut(request["at"],
                                                                  request.get("mode", "before"))})
        else:
            super()._rig_request(conn, request)

    def _set_throttle(self, share):
        if not self.realtime:
            raise ValueError("throttle: this chip is not kept to the wall clock (realtime off)")
        if share is None:
            raise ValueError("throttle: share is the chip's share of real time, 0.01 to 1")
        self.throttle = _throttle(share)
        if self._ctl is not None:  # else the next power-on starts with it
            self._ctl_send(b"throttle %r\n" % self.throttle)

    def _ask_time(self, conn):
        # The chip's clock: nanoseconds and cycles since this power-on.
        if self._ctl is None:
            raise ValueError("the board is off: its clock is not running")
        self._time_asked.append(conn)
        self._ctl_send(b"time\n")

    def _check_pin(self, pin):
        if pin not in self._levels:
            raise ValueError("unknown input %r (one of %s)" % (pin, " ".join(self._levels)))

    def _wired(self):
        return self._ctl is not None  # else the level waits for the next power-on

    def _send_level(self, pin, level, number):
        # Active low: present, pressed or turned pulls the pin to ground;
        # otherwise it floats to its pull-up. The emulator answers "applied
        # NUMBER" after two controller ticks with it.
        if pin in self.wiring["expander_inputs"]:
            self._expander_level(pin, level, number)
            return
        gpio = self.wiring["inputs"][pin]
        self._ctl_send(b"set %d %s %d\n" % (gpio, b"0" if level else b"z", number))

    def _press_wait(self, ms):
        return ms / 1000  # on both clocks (_due)

    # An answer the chip owes is given up only when its seconds have passed on
    # the wall's clock and on the chip's: a chip the host runs at a twentieth
    # of real time is waited for twenty times as long, not called deaf.
    def _due(self, seconds):
        return (time.monotonic() + seconds, self._chip_s() + seconds)

    def _overdue(self, due, now):
        return now > due[0] and self._chip_s() > due[1]

    def _chip_s(self):
        # The chip's clock since power-on, as its last speed line (once a wall
        # second) puts it and its pace since; the wall's before the first.
        now = time.monotonic()
        if self._speed_at is None:
            return now - self.powered_at
        wall, chip = self._speed_at
        return chip + (now - wall) * self._speed[0]

    def _send_press(self, pin, ms, number):
        # The emulator holds the press on the chip's clock and answers
        # "applied NUMBER" after the release.
        if pin in self.wiring["expander_inputs"]:
            address, bit = self.wiring["expander_inputs"][pin]
            self._ctl_send(b"xpress %d %d %d %d\n" % (address, bit, ms, number))
            return
        self._ctl_send(b"press %d %d %d\n" % (self.wiring["inputs"][pin], ms, number))

    def _ctl_send(self, data):
        try:
            self._ctl.sendall(data)  # a few bytes on a local socket
        except OSError:
            pass

    def _ready(self, tag):
        if tag != "ctl":
            return super()._ready(tag)  # raises: no such descriptor
        self._read_ctl()
