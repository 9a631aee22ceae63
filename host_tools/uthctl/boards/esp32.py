# The emulated ESP32's supervisor: MicroPython's official ESP32_GENERIC image
# (or the SPIRAM one) on QEMU's ESP32 machine (Espressif's, from the kit in
# ../shared/esp32-emulator; esp32_flash.py), with the same face as the other
# boards (supervisor.py), so a host tool or a test drives it the same way:
#
#   host (mpremote, uthctl) <-> pty  ==relay==  QEMU's stdin/stdout (UART0)
#   rig <-> rig port  ==wire==  a unix socket, QEMU's UART2, the bus stand-ins
#
# The flash file is the whole 16 MB chip (esp32_flash.make_flash: the official
# image merged, the controller's .mpy build and the stand-ins in its littlefs),
# written through by QEMU at every erase and program, so killing QEMU is a
# power cut at that instant. Each power-on is one QEMU process; the chip's own
# resets (machine.reset(), a panic's "Rebooting...") restart it on its saved
# flash, as a power cycle would: QEMU's machine comes back from a software
# reset with its flash cache in a state whose next flash write panics, which
# no chip does. QEMU dies with the thread that spawned it (the supervisor's
# I/O thread; supervisor.spawn_with_parent_death).
#
# The pins: QEMU's machine has no MCP23017, and its GPIO and SPI reach nothing,
# so the shipped board file is given stand-ins for its I2C bus (the two
# expanders as register models), LOCK, the key and the display's SPI bus
# (boards/esp32_qemu/standin.py), reached over UART2 in the virtual board's
# wire protocol (virtual.py). The rig port is the virtual board's: set, press,
# state, power, reset, i2c_fault, ping; "state" adds display_segments, panics
# (the chip's panics seen since the supervisor started), qemu_aborts (QEMU's
# own aborts at boot, each started again once) and resets.
#
# QEMU's known abort at boot (`mttcg_cpu_thread_fn: assertion failed:
# (cpu->halted)`, ../shared/esp32-emulator/README.md) is retried once a
# power-on, counted in "qemu_aborts" and reported on stderr, never hidden; a
# second in a row leaves the board off, reported.
import os
import selectors
import socket
import subprocess
import time
from pathlib import Path

from . import esp32_flash, esp32_uart, qemu_qmp
from .emulated import EmulatedBoard
from .flash import prepare_folder, state_folder
from .max7219_model import Max7219
from .rig_port import Conn
from .sim_pins import INITIAL_LEVELS, SEATS
from .sim_wire import SimWire
from .supervisor import kill_and_reap, spawn_with_parent_death, write_some
from .vboard_i2c import I2cFaultOps

QEMU_ABORT = b"cpu->halted"
PANIC = b"Guru Meditation Error"
_RESET_MARK = b"\nrst:0x"  # the ROM's first line after a reset: rst:0x1 is a power-on
_TAIL = 256
_CONSOLE_KEPT = 16384


def default_esp32_flash():
    return state_folder() / "esp32-flash.bin"


class Esp32Board(SimWire, I2cFaultOps, EmulatedBoard):
    title = "emulated ESP32"
    _NAME, _LOG = "esp32", "qemu.log"  # its reports' name, its process's log
    RIG_OPS = "state, set, press, power, reset, i2c_fault, ping"
    EXPANDERS = (0x20, 0x21)
    _CALL_TIMEOUT = 15.0
    # QEMU boots the image in 10-45 s on the 2-core machine, and importing the
    # controller's .mpy files from its slow flash takes about a minute more.
    _START_TIMEOUT = 300.0
    HEADLESS_WAIT = _START_TIMEOUT  # uthctl sim --headless waits this long for its line
    _START_POLL = 0.1
    _APPLY_TIMEOUT = 30.0

    def __init__(self, flash=None, stderr=None, image="wroom", memory=None, build=None):
        super().__init__(Path(flash or default_esp32_flash()).resolve(), stderr)
        self.image = image  # "wroom": ESP32_GENERIC; "wrover": the SPIRAM image
        self.memory = memory  # QEMU's -m (the PSRAM it maps), for the SPIRAM image
        self.build = build  # the folder the flash's littlefs gets (esp32_flash.emulated_build)
        self.qemu = esp32_flash.qemu()
        self.kit = esp32_flash.kit()
        self.panics = 0
        self.qemu_aborts = 0
        self.resets = 0

    # ---- life cycle ----

    def _prepare_flash(self):
        prepare_folder(self.flash, default_esp32_flash())

    def _make_image(self, flash):
        esp32_flash.make_flash(flash, self.build or esp32_flash.emulated_build(),
                               self.image)

    def _check_flash(self):
        size = self.flash.stat().st_size
        if size != esp32_flash.FLASH_SIZE:
            raise OSError("flash %s is %d bytes, not an ESP32's 16 MB flash file (%d bytes)"
                          % (self.flash, size, esp32_flash.FLASH_SIZE))

    def _open(self):
        self._open_pty("esp32")

    # ---- state (I/O thread) ----

    def _reset_state(self):
        super()._reset_state()
        self._board = None  # the wire: the stand-ins' UART2
        self._wire_path = None
        self._wire_retry = None
        self._reset_faults()
        self._levels = dict(INITIAL_LEVELS)
        self._lights = {"betlight": [0] * SEATS, "jackpot": [0] * SEATS}
        self._display = Max7219()
        self._out_tail = b""
        self._aborted_once = False
        self._fed_at = 0.0
        self._woke_at = 0.0
        self._qmp_path = None

    def _state(self):
        return dict(self._chip_state("betlight", "jackpot", self._board is not None),
                    panics=self.panics, qemu_aborts=self.qemu_aborts, resets=self.resets)

    # ---- QEMU ----

    def _command(self):
        self._wire_path = os.path.join(self._workdir, "uart2-%d.sock" % self._boots)
        command = [str(self.qemu), "-L", str(self.kit / esp32_flash.ROM_FOLDER),
                   "-machine", "esp32", "-display", "none", "-monitor", "none",
                   "-drive", "file=%s,if=mtd,format=raw" % self.flash,
                   "-chardev", "socket,id=wire,path=%s,server=on,wait=off" % self._wire_path,
                   "-serial", "stdio", "-serial", "null", "-serial", "chardev:wire"]
        self._qmp_path = os.path.join(self._workdir, "qmp-%d.sock" % self._boots)
        command += esp32_uart.qmp_option(self._qmp_path)
        if self.memory:
            command += ["-m", str(self.memory)]
        return command

    def _spawn(self):
        log = open(os.path.join(self._workdir, "qemu.log"), "ab")
        try:
            self._proc = spawn_with_parent_death(
                self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                cwd=self._workdir, start_new_session=True, umask=0o077)
        finally:
            log.close()
        self.powered_at = time.monotonic()
        for fd in (self._proc.stdin.fileno(), self._proc.stdout.fileno()):
            os.set_blocking(fd, False)
        self._selector.register(self._proc.stdout, selectors.EVENT_READ, "board_out")
        self._boots += 1
        self._raw = False
        self._tail = b""
        self._out_tail = b""
        self._wire_retry = time.monotonic()
        self._display = Max7219()

    def _settle_flash(self):
        # QEMU paused first, so the flash file holds every operation the chip
        # finished (qemu_qmp.py); one that does not answer is killed as it is.
        if self._proc is not None and self._proc.poll() is None and self._qmp_path:
            qemu_qmp.stop(self._qmp_path)

    def _kill(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        kill_and_reap(proc)
        try:
            self._selector.unregister(proc.stdout)
        except (KeyError, ValueError):
            pass
        for item in (proc.stdin, proc.stdout):
            try:
                item.close()
            except OSError:
                pass
        self._drop_board()
        self._wire_retry = None
        self._lights = {"betlight": [0] * SEATS, "jackpot": [0] * SEATS}
        self._display = Max7219()
        self._board_in = b""
        return proc.returncode

    def _start(self):
        self._aborted_once = False
        self._spawn()

    def _power_off(self):
        changed = self._powered
        self._settle_flash()
        self._kill()
        self._powered = False
        return changed

    def _restart(self):
        # The chip reset itself: a fresh QEMU on the same flash, as a power cycle.
        self._settle_flash()
        self._kill()
        self._came_up = {"state": None, "fault": None}
        self._line_buf = b""
        self._spawn()

    def _check_exit(self):
        if self._proc is None or self._proc.poll() is None:
            return
        self._read_board(drain=True)
        code = self._kill()
        log = self._log_tail()
        if QEMU_ABORT.decode() in log and not self._aborted_once:
            self.qemu_aborts += 1
            self._aborted_once = True
            self._report("QEMU aborted at boot (its known mttcg fault, %d so far); started "
                         "again once:\n%s" % (self.qemu_aborts, log.strip()[-300:]))
            self._spawn()
            return
        self._powered = False
        self._report("QEMU exited with %s; its log:\n%s" % (code, log))

    # ---- the serial relay ----

    def _from_board(self, data):
        super()._from_board(data)
        self._console_log(data)
        return self._chip_reset(data)

    def _console_log(self, data):
        # The console's last output, for a failure's report (console_tail()).
        self._console = (getattr(self, "_console", b"") + data)[-_CONSOLE_KEPT:]

    def console_tail(self):
        # What the chip printed last (panics, tracebacks, the REPL), any thread.
        return getattr(self, "_console", b"").decode(errors="replace")

    def _chip_reset(self, data):
        # A panic, or a reset the chip made itself: counted, then a fresh QEMU.
        window = self._out_tail + data
        self._out_tail = window[-_TAIL:]
        if PANIC in window and PANIC not in window[:len(window) - len(data)]:
            self.panics += 1
            self._report("the chip panicked (%d so far)" % self.panics)
        at = window.find(_RESET_MARK)
        if at < 0 or at + len(_RESET_MARK) + 3 > len(window):
            return False
        kind = window[at + len(_RESET_MARK):at + len(_RESET_MARK) + 3]
        if kind.startswith(b"1 "):
            self._out_tail = window[at + len(_RESET_MARK):]  # the power-on's own line
            return False
        self.resets += 1
        self._restart()
        return True

    def _feed_board(self):
        # A piece at a time, each once QEMU has read the last and no sooner than
        # the wire's pace allows (esp32_uart.py).
        if self._proc is None:
            return
        fd = self._proc.stdin.fileno()
        now = time.monotonic()
        if esp32_uart.unread(fd):
            if now - self._woke_at >= esp32_uart.WAKE_EVERY:
                esp32_uart.wake(self._qmp_path)
                self._woke_at = now
            return
        if self._board_in and now - self._fed_at >= esp32_uart.FEED_EVERY:
            piece = self._board_in[:esp32_uart.FEED_PIECE]
            self._board_in = write_some(fd, piece) + self._board_in[len(piece):]
            self._fed_at = now

    # ---- the wire (UART2) ----

    def _tick(self):
        if self._board is None and self._wire_retry is not None and \
                time.monotonic() >= self._wire_retry:
            self._wire_retry = time.monotonic() + 0.1
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self._wire_path)
            except OSError:
                sock.close()
                return
            self._wire_retry = None
            conn = Conn(sock, "board")
            self._conns.append(conn)
            self._selector.register(sock, selectors.EVENT_READ, conn)
            self._board = conn

    def _display_line(self, name, value):
        if name != "spi":
            return False
        words = value.split()
        if len(words) == 2 and all(word.isdigit() for word in words):
            self._display.write(int(words[0]), int(words[1]))
        return True
