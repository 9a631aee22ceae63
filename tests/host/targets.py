# One scenario, two boards: the tests that drive a board through its rig
# take a `target` (conftest.py, `pytest --target sim|pico|both`) and get
# their board, link and rig from it, so the same steps and the same
# assertions run on the virtual board (the firmware on the unix port) and on
# the emulated Pico (the project's image, the controller frozen in).
#
# What differs between the two is absorbed here, not in the assertions:
# - time: the emulator runs at about half the chip's speed on a loaded host,
#   so every wait a test gives is stretched on the Pico (never shortened);
# - the seed: the virtual board takes it as an argument, the Pico as the
#   TEST-ONLY /boot.py (pico_target.seeded_boot), written once a seed onto a
#   copy of the flash the controller made at its first start, once a session;
# - the display: compare through max7219_model.reading on both targets.
import os
import shutil
import time
from pathlib import Path

from pico_target import BOOT_WAIT, fresh_controller, mpremote, seeded_copies, to_repl

from uthctl.links.board_link import Link
from uthctl.links.rig import Rig

NAMES = ("sim", "pico", "esp32")
RP2_EPOCH = 1609459200  # 2021-01-01 00:00:00 UTC
ESP32_EPOCH = 946684800  # 2000-01-01 00:00:00 UTC


class TargetRig(Rig):
    # A rig whose waits are the target's: default and given timeouts stretched.
    def __init__(self, address, stretch, port=None):
        super().__init__(address, timeout=5.0 * stretch, port=port)
        self.stretch = stretch

    def wait_for(self, predicate, timeout=5.0, interval=0.02, what="the rig state"):
        return super().wait_for(predicate, timeout * self.stretch, interval, what)


class TargetLink(Link):
    def __init__(self, port, timeout, stretch):
        super().__init__(port, timeout=timeout * stretch)
        self.stretch = stretch

    def wait_ready(self, timeout=10.0):
        return super().wait_ready(timeout * self.stretch)


class QuietStartLink(TargetLink):
    # The emulated ESP32's link: wait_ready sends nothing until its supervisor
    # has seen the controller's `started` since the last power-on or fresh QEMU
    # (Esp32Board.wait_started), and only then pings. Bytes arriving on UART0
    # while the chip starts, its flash read for minutes, panicked it under this
    # QEMU again and again (docs/boards.md, "The emulated ESP32"); a real ESP32
    # takes them in its UART interrupt, which runs from IRAM.
    def __init__(self, port, timeout, stretch, board):
        super().__init__(port, timeout, stretch)
        self.board = board

    def wait_ready(self, timeout=10.0):
        if self.board is not None:
            self.board.wait_started(Esp32Target.boot_wait)
        return super().wait_ready(timeout)


class SimTarget:
    name = "sim"
    stretch = 1.0
    # The board's first serial line at power-on is the controller's `started`:
    # the virtual board and the Pico print nothing before it.
    boot_lines = False
    boot_wait = BOOT_WAIT  # power-on to that line
    # The virtual board's clock starts as the host's; a chip's with no battery
    # starts at its port's epoch, unset, at each power-on.
    clock_set_at_power_on = True
    # Floats are the host's doubles on the virtual board (CPython); both chips'
    # ports build MICROPY_FLOAT_IMPL_FLOAT, single precision.
    single_float = False
    # The most bytes a host may have sent and not yet had answered, where the
    # board's serial input has no flow control (docs/host-link.md); None: it
    # has (the virtual board's pty, the Pico's USB), and a burst of any length
    # waits for the controller to read it.
    serial_window = None

    def board(self, flash, seed=None, power=True, **options):
        from uthctl.boards.virtual import VirtualBoard

        return VirtualBoard(flash=flash, seed=seed, **options).start(power=power)

    def rig(self, address):
        return TargetRig(address, self.stretch)

    def link(self, port, timeout=10.0):
        return TargetLink(port, timeout, self.stretch)

    def wait(self, seconds):
        return seconds * self.stretch

    def process_ids(self, board):
        # What runs the firmware: the interpreters holding the image.
        from vboard_procs import interpreter_pids

        return interpreter_pids(board.flash)

    def clock_window(self, rig):
        # The earliest and latest the board's clock can read now: the host's.
        now = time.time()
        return now - 120, now


class PicoTarget(SimTarget):
    name = "pico"
    clock_set_at_power_on = False
    single_float = True
    # About half the chip's speed on an idle 2-core machine, far less while
    # other runs share it: waits are long, and met as soon as the state comes.
    stretch = 6.0

    def __init__(self, images):
        self.images = images

    def process_ids(self, board):
        # What runs the firmware: this power-on's emulator.
        return [board.state()["pid"]]

    def clock_window(self, rig):
        # The rp2 port starts its clock at 2021-01-01 00:00 at each power-on
        # (no battery, nobody set it): it has run for the chip's emulated time.
        ran = rig.request(op="time")["emulated_ns"] / 1e9
        return RP2_EPOCH, RP2_EPOCH + ran + 1

    def board(self, flash, seed=None, power=True, **options):
        from uthctl.boards.pico import PicoBoard

        assert not options, "the emulated Pico takes no %s" % sorted(options)
        flash = Path(flash)
        if not flash.exists():  # a new board: the deployed project, seeded
            self.images.copy_to(seed, flash)
        return PicoBoard(flash=flash).start(power=power)


class PicoImages:
    # Flash images of the controller started on a new flash, one a seed, made once a session.
    def __init__(self, folder):
        self.folder = Path(folder)
        self.made = {}

    def copy_to(self, seed, flash):
        shutil.copyfile(self.image(seed), flash)
        os.chmod(flash, 0o600)

    def image(self, seed):
        if seed not in self.made:
            self.made[seed] = self._deployed() if seed is None else self._seeded(seed)
        return self.made[seed]

    def _deployed(self):
        from uthctl.boards.pico import PicoBoard

        flash = self.folder / "deployed.img"
        with PicoBoard(flash=flash) as board:
            came = fresh_controller(board, self.folder)
            assert came == {"state": "unconfigured", "fault": None}, came
        return flash

    def _seeded(self, seed):
        # That flash with the TEST-ONLY seeded /boot.py on it.
        from uthctl.boards.pico import PicoBoard

        flash = self.folder / ("seed-%d.img" % seed)
        self.copy_to(None, flash)
        folder = self.folder / ("boot-%d" % seed)
        folder.mkdir(exist_ok=True)
        with PicoBoard(flash=flash) as board:
            assert board.wait_started(BOOT_WAIT)["state"] == "unconfigured"
            to_repl(board)  # a new board: no record written
            mpremote(board.serial_path, *seeded_copies(folder, seed))
        return flash


class Esp32Target(SimTarget):
    # The emulated ESP32 (uthctl/boards/esp32.py): the official ESP32_GENERIC image on
    # QEMU, the .mpy build and the bus stand-ins on its flash. Its CPU runs near the
    # chip's speed, its flash far slower (tens of ms a flash operation, about 0.2 s a
    # small file written), and the controller starts in about three minutes, more with
    # each panic's fresh QEMU: waits are long.
    name = "esp32"
    stretch = 12.0
    clock_set_at_power_on = False
    single_float = True
    # UART0's input: the port's 260-byte ring buffer (ports/esp32/mphalport.c,
    # stdin_ringbuf) holds 259 bytes (py/ringbuf.h keeps one slot free); its
    # interrupt drops what does not fit, on the DevKitC as under QEMU.
    serial_window = 259
    # Its ROM and the ESP-IDF bootloader print their lines first ("ets Jul 29
    # 2019", "rst:0x1 (POWERON_RESET)", ...), a panic its report and the next
    # boot's: a host skips them as it skips any line that is not JSON.
    boot_lines = True
    boot_wait = 900.0  # the controller's start, and each panic's fresh QEMU

    def __init__(self, images):
        self.images = images
        self.boards = {}  # serial path -> board, for its link's quiet wait
        self.created = time.time()

    def link(self, port, timeout=10.0):
        return QuietStartLink(port, timeout, self.stretch, self.boards.get(port))

    def process_ids(self, board):
        return [board.state()["pid"]]

    def clock_window(self, rig):
        # Nobody set the chip's clock: at each power-on it reads 2000-01-01 00:00
        # (the ESP32 port counts from 2000) and has run no longer than this session.
        return ESP32_EPOCH, ESP32_EPOCH + time.time() - self.created + 1

    def board(self, flash, seed=None, power=True, **options):
        from uthctl.boards.esp32 import Esp32Board

        assert not options, "the emulated ESP32 takes no %s" % sorted(options)
        flash = Path(flash)
        if not flash.exists():
            self.images.copy_to(seed, flash)
        board = Esp32Board(flash=flash).start(power=power)
        self.boards[board.serial_path] = board
        board.stop = _reporting_stop(board, flash.with_name("console.txt"))
        return board


def _reporting_stop(board, console):
    # The board's stop, first printing its panics and fresh QEMUs (pytest -s)
    # and keeping the chip's last console output beside its flash, so that a
    # failure can be laid beside the panics that came before it.
    stop = board.stop

    def reporting_stop(*args, **kwargs):
        if board.alive():
            print("emulated ESP32: %(panics)d panics, %(qemu_aborts)d QEMU aborts, "
                  "%(resets)d resets, %(boots)d power-ons" % board.state())
            console.write_text(board.console_tail())
        return stop(*args, **kwargs)
    return reporting_stop


class Esp32Images(PicoImages):
    # Flash files of the emulated ESP32, one a seed, made once a session: the build
    # written on the host, then the controller's first start on the chip (its store
    # made, minutes under QEMU), paid once and copied to each board. With a seed,
    # /boot.py installs the stand-ins and then the seeded random source
    # (pico_seeded_boot.py, as on the emulated Pico), seeded_bytes.py beside it,
    # both written on the host into the started flash.
    def _deployed(self):
        from uthctl.boards import esp32_flash
        from uthctl.boards.esp32 import Esp32Board

        flash = self.folder / "esp32-deployed.bin"
        esp32_flash.make_flash(flash, esp32_flash.emulated_build())
        board = Esp32Board(flash=flash).start()
        try:
            came = board.wait_started(Esp32Target.boot_wait)
            assert came == {"state": "unconfigured", "fault": None}, (
                came, board.console_tail()[-2000:])
        finally:
            board.stop()
        return flash

    def _seeded(self, seed):
        from pico_target import SEEDED_BYTES, seeded_boot

        from uthctl.boards import esp32_flash

        flash = self.folder / ("esp32-seed-%d.bin" % seed)
        self.copy_to(None, flash)
        boot = (esp32_flash.emulated_build() / "boot.py").read_bytes()
        esp32_flash.write_files(flash, {
            "boot.py": boot + b"\n" + seeded_boot(seed).encode(),
            "seeded_bytes.py": SEEDED_BYTES.read_bytes()})
        return flash
