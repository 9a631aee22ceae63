# The power-cut proof on the emulated ESP32's flash: MicroPython's official
# ESP32_GENERIC image on QEMU (uthctl/boards/esp32.py), the controller's .mpy
# build in the image's own littlefs, cut at the flash operations of the
# round that hits, with the Pico proof's day, seed and checks
# (test_pico_power_cut.py).
#
# QEMU's ESP32 machine has no hook on flash operations, so the cut is made on
# the chip: a TEST-ONLY /boot.py mounts `/` on esp32_cut_bdev.CutFlash, the
# vfs partition wrapped, which counts every program and erase from power-on
# and prints each on the console; at the number the host armed for that
# power-on (written into the phy_init partition while QEMU is off) it does
# the operation not at all ("before") or half of it ("partial": the first
# half of a program's bytes, the first half of an erased block), prints
# "flash-cut" and stops. The supervisor (CutBoard below, its I/O thread)
# stops QEMU (QMP's `stop`, which lands the flash writes QEMU still has under
# way: uthctl/boards/qemu_qmp.py) and kills it as that line arrives, so the
# file is what the chip left; each cut checks the cut block in the file (a
# "before" erase left it as it was, a "partial" erase left its first half
# erased and its second half as it was).
#
#   day       configuration A1 in service mode, the record key given,
#             rounds of 6, 6 and 3 seats (15 contributions), all in one
#             power-on and never cut; then the round that hits at seat 1
#             with five later seats, and (UTH_ESP32_CUT_FULL=1) its
#             validation by jackpot slip
#   record    each cut step once uncut, one power-on: its starting flash,
#             the meters before and after, its operations' numbers
#   cut       for each chosen operation and mode: the step's flash written
#             back, the cut armed, the step replayed until QEMU is killed,
#             then a restart on that flash and the Pico proof's checks
#             (check_restart: every meter just before or just after the
#             step, seeded + contributed = paid + meter, the log export
#             verifies with its authenticators, no live hit value nor the
#             record key out, an exposed value refused and redrawn)
#
# A panic of the emulator (docs/boards.md, "The emulated ESP32") restarts the
# chip with its counts at zero: a recorded step or a cut during which QEMU
# was started again is done again from its saved flash (at most TRIES times)
# and the panics are reported. `make test-esp32` cuts BUDGET operations of
# the round that hits (UTH_ESP32_CUT_BUDGET, 4), spread over it, the modes
# taking turns, or all of them in both modes once the budget reaches that
# (UTH_ESP32_CUT_AT=3:before,5:partial: those operations of the round);
# UTH_ESP32_CUT_FULL=1 cuts every operation of the round and of its
# validation in both modes. Each cut costs two controller starts.
import contextlib
import os
import re
import sys
import time
from pathlib import Path

import pytest
import test_pico_power_cut as pico
from esp32_cut_bdev import ARM
from pico_target import SEEDED_BYTES, seeded_boot
from test_pico_power_cut import (
    SIX,
    Cut,
    Host,
    check_draws,
    check_restart,
    configure,
    known_secrets,
    meters,
    play,
    provision,
    validate,
)

from uthctl.boards import esp32_flash
from uthctl.links.board_link import Link
from uthctl.links.rig import Rig

WHY_NOT = esp32_flash.unavailable()
pytestmark = [pytest.mark.esp32, pytest.mark.slow,
              pytest.mark.skipif(WHY_NOT is not None, reason=str(WHY_NOT))]

if WHY_NOT is None:
    from uthctl.boards.esp32 import Esp32Board
else:
    Esp32Board = object

FULL = os.environ.get("UTH_ESP32_CUT_FULL") == "1"
BUDGET = int(os.environ.get("UTH_ESP32_CUT_BUDGET", "4"))
CHOSEN = os.environ.get("UTH_ESP32_CUT_AT")  # "3:before,5:partial": these of the round that hits
MODES = ("before", "partial")
START_WAIT = 900.0  # the controller's start, and each panic's fresh QEMU
WAIT = 180.0  # any one event, reply or light: QEMU's flash is slow
QUIET = 5.0  # seconds without a new flash operation that end a recorded step
TRIES = 3
PHY_INIT = 0xF000  # the phy_init partition (the image's partition table)
OP_LINE = re.compile(rb"^flash-op +(\d+) [pe]$")
CUT_LINE = re.compile(rb"^flash-cut +(\d+) ([pe]) +(\d+) +(\d+) +(\d+) +(\d+)$")
CUT_BDEV = Path(__file__).with_name("esp32_cut_bdev.py")
WARMUP = [configure("A1"), provision(), play(SIX), play(SIX), play((1, 2, 3))]
CUT_STEPS = [play(SIX, hits=True), validate("jackpot_slip")]


def progress(text):
    # A line on stderr as the minutes go by (pytest -s; capsys leaves it be).
    sys.__stderr__.write("%s esp32 power cut: %s\n" % (time.strftime("%H:%M:%S"), text))


class CutBoard(Esp32Board):
    # The emulated ESP32's supervisor reading the cut block device's console
    # lines in its I/O thread as they come: the power-on's flash operations
    # counted (`ops`), and QEMU killed the moment the chip reports its cut
    # (`cut`: the line's number, kind, block, offset, length and sum).
    def _spawn(self):
        super()._spawn()
        self.ops = 0
        self._flash_tail = b""

    def _chip_reset(self, data):
        *lines, self._flash_tail = (self._flash_tail + data).split(b"\r\n")
        self._flash_tail = self._flash_tail[-256:]
        for line in lines:
            op = OP_LINE.match(line.strip())
            cut = CUT_LINE.match(line.strip())
            if op:
                self.ops = int(op.group(1))
            elif cut:
                self.cut = cut.groups()
                self._power_off()
                return True
        return super()._chip_reset(data)


class ChipHost(Host):
    wait = WAIT


class ChipBench:
    # One supervisor on one flash file, its link and rig; a step's flash is
    # written back, and a power-on armed, only while the board is off.
    def __init__(self, flash, stack):
        self.flash = flash
        self.board = CutBoard(flash=flash).start(power=False)
        stack.callback(self.board.stop)
        self.rig = stack.enter_context(Rig(self.board.rig_address, timeout=WAIT))
        self.rest = self.rig.state()["inputs"]
        self.link = stack.enter_context(Link(self.board.serial_path, timeout=WAIT))
        self.boots = self.ready_boots = 0
        self.panics = 0

    def power_on(self, cut=None):
        # A host once the controller answers; None when a cut stopped the boot.
        self.arm(cut)
        self.board.cut = None
        self.boots = self.board.state()["boots"]
        host = ChipHost(self.link, self.board)
        self.board.power(True)
        deadline = time.monotonic() + START_WAIT
        while self.board.wait_started(0)["state"] is None:
            host._read(0.5)  # the boot's lines, kept; the link stays quiet
            if not self.board.state()["powered"]:
                return None
            assert time.monotonic() < deadline, "the controller never started"
        host.ready()
        self.ready_boots = self.board.state()["boots"]
        progress("power-on%s: the controller answered after %.0f s, %d operations, "
                 "%d fresh QEMUs" % ("" if cut is None else " cut at %d %s" % cut,
                                     time.monotonic() - deadline + START_WAIT,
                                     self.ops(), self.board.state()["boots"] - self.boots))
        return host

    def restarted(self):
        # QEMU started again (a panic, the chip's own reset) since the
        # controller answered: the chip's count began again. A panic in the
        # boot before it is only counted (the boot's own count is checked).
        return self.board.state()["boots"] != self.ready_boots

    def ops(self):
        return self.board.ops

    def off(self):
        state = self.board.state()
        self.panics += max(0, state["boots"] - self.boots - 1)
        self.board.power(False)
        with open(self.flash.with_name("console.txt"), "a") as file:
            file.write(self.board.console_tail()[-4000:] + "\n==== off\n")

    def arm(self, cut):
        assert not self.board.state()["powered"]
        arm = b"" if cut is None else b"%s %d %s\n" % (ARM, cut[0], cut[1].encode())
        with open(self.flash, "r+b") as file:
            file.seek(PHY_INIT)
            file.write(arm.ljust(32, b"\xff"))

    def release(self):
        for pin, level in self.rest.items():
            self.rig.set(pin, level)

    def load(self, image):
        assert not self.board.state()["powered"]
        with open(self.flash, "r+b") as file:
            file.write(image)

    def image(self):
        return self.flash.read_bytes()


def quiet_ops(bench, host):
    # The power-on's operation count once no new one came for QUIET seconds.
    count, since = bench.ops(), time.monotonic()
    while time.monotonic() - since < QUIET:
        host._read(0.2)
        now = bench.ops()
        if now != count:
            count, since = now, time.monotonic()
    return count


def cut_flash(folder):
    # A new board's flash: the build, the stand-ins, the seeded source and
    # a /boot.py mounting `/` on the cut block device.
    build = esp32_flash.emulated_build()
    boot = (build / "boot.py").read_text()
    mount = "from flashbdev import bdev\n"
    assert boot.count(mount) == 1, "boards/esp32_qemu/boot.py no longer imports bdev so"
    boot = boot.replace(mount, mount + "from esp32_cut_bdev import armed\nbdev = armed(bdev)\n")
    extra = {"boot.py": (boot + "\n" + seeded_boot(pico.SEED)).encode(),
             "seeded_bytes.py": SEEDED_BYTES.read_bytes(),
             "esp32_cut_bdev.py": CUT_BDEV.read_bytes()}
    return esp32_flash.make_flash(Path(folder) / "flash.bin", build, extra=extra)


def warm_up(bench):
    # The day before the round that hits, in one power-on, never cut.
    image = bench.image()
    for _ in range(TRIES):
        host = bench.power_on()
        assert host is not None
        progress("the controller started for the warm-up, %d operations" % bench.ops())
        try:
            for step in WARMUP:
                step(host, bench.rig)
                progress("warm-up: %s done, %d operations" % (step.name, bench.ops()))
            quiet_ops(bench, host)
            after = meters(host)
            bench.off()
            check_draws(host, after)
            return
        except (AssertionError, Cut) as error:
            if not bench.restarted():
                raise
            progress("the emulator restarted in the warm-up (%s): again" % error)
            bench.off()
            bench.release()
            bench.load(image)
    raise AssertionError("the emulator restarted in every warm-up")


def record(bench, step):
    # One step uncut: its flash, meters and operations, done again after a panic.
    image = bench.image()
    for _ in range(TRIES):
        bench.load(image)
        host = bench.power_on()
        booted = bench.ops()
        before = meters(host)
        try:
            step(host, bench.rig)
            done = quiet_ops(bench, host)
            after = meters(host)
        except (AssertionError, Cut):
            if not bench.restarted():
                raise
            done = None
        restarted = bench.restarted()
        bench.off()
        bench.release()
        if restarted:
            continue
        check_draws(host, after)
        assert done > booted, "%s wrote nothing" % step.name
        progress("recorded %s: operations %d to %d" % (step.name, booted + 1, done))
        return {"step": step, "image": image, "booted": booted, "ops": done,
                "before": before, "after": after}
    raise AssertionError("the emulator restarted in every recording of %s" % step.name)


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    folder = tmp_path_factory.mktemp("esp32-cut")
    flash = cut_flash(folder)
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        bench = ChipBench(flash, stack)
        warm_up(bench)
        steps = [record(bench, step) for step in (CUT_STEPS if FULL else CUT_STEPS[:1])]
        panics = bench.panics
    return {"flash": flash, "steps": steps, "panics": panics,
            "seconds": time.monotonic() - started}


def chosen_cuts(steps):
    # (step index, operation in the step from 1, mode): in full every one in
    # both modes; else BUDGET spread over the round that hits, modes in turn,
    # or, when BUDGET reaches it, all of its operations in both modes.
    count = steps[0]["ops"] - steps[0]["booted"]
    if CHOSEN and not FULL:
        cuts = [(0, int(at), mode) for at, mode in (item.split(":") for item in CHOSEN.split(","))]
        assert all(1 <= at <= count and mode in MODES for _, at, mode in cuts), CHOSEN
        return cuts
    if FULL or BUDGET >= 2 * count:
        return [(index, at, mode) for index, entry in enumerate(steps)
                for at in range(1, entry["ops"] - entry["booted"] + 1) for mode in MODES]
    chosen = sorted({1 + (count - 1) * i // max(1, BUDGET - 1) for i in range(BUDGET)})
    return [(0, at, MODES[n % 2]) for n, at in enumerate(chosen)]


def check_cut_block(bench, cut, mode):
    # The flash file holds what the chip left at the cut (QEMU stopped, its
    # writes landed, before it was killed): littlefs programs only erased
    # bytes, so a program cut before it left its bytes erased, a torn one its
    # first half (their sum as the chip reported it) and its second half
    # erased; a half erase left its block's first half erased and its second
    # half (that sum).
    _, kind, block, offset, length, total = (int(field) if field.isdigit() else field
                                             for field in cut)
    start = esp32_flash.VFS_OFFSET + block * 4096 + offset
    with open(bench.flash, "rb") as file:
        file.seek(start)
        data = file.read(length)
    half = length // 2
    if mode == "before":
        if kind == b"p" and data != b"\xff" * length:
            return ["a program cut before it left bytes programmed in the flash file"]
        return []
    erased, programmed = (data[:half], data[half:]) if kind == b"e" else (data[half:], data[:half])
    if erased != b"\xff" * half:
        return ["the half the cut left erased is not erased in the flash file"]
    if sum(programmed) % 10_000_000 != total:
        return ["the half the cut programmed is not in the flash file"]
    return []


def cut_once(bench, entry, at, mode):
    # One cut: the step's flash, the cut armed, the step replayed until QEMU
    # is killed, then the restart's checks; done again after a panic.
    for _ in range(TRIES):
        bench.load(entry["image"])
        host = bench.power_on(cut=(entry["booted"] + at, mode))
        if host is None or bench.ops() != entry["booted"]:
            progress("the boot made %d operations (%s)" % (bench.ops(), host))
            if bench.board.state()["boots"] != bench.boots + 1:  # a panic in the boot
                bench.off()
                continue
            raise AssertionError("the boot made %d flash operations, %d recorded"
                                 % (bench.ops(), entry["booted"]))
        try:
            entry["step"](host, bench.rig)
            quiet_ops(bench, host)
        except Cut:
            pass
        except AssertionError:
            if bench.board.cut is None:
                raise
        cut = bench.board.cut
        restarted = bench.restarted()
        progress("cut at %d %s: %s%s" % (at, mode, cut, ", QEMU restarted" if restarted else ""))
        bench.off()
        bench.release()
        if restarted:
            continue
        assert cut is not None, "the step ended before operation %d" % at
        assert int(cut[0]) == entry["booted"] + at, cut
        problems = check_cut_block(bench, cut, mode)
        problems += check_restart(bench, entry, host.lines, known_secrets(entry["before"]))
        progress("cut %s at operation %d %s: %s" % (entry["step"].name, at, mode,
                                                    "; ".join(problems) or "passed"))
        return problems
    raise AssertionError("the emulator restarted in every try")


def test_esp32_power_cut_at_flash_operations_of_the_round_that_hits(day, capsys):
    steps, started = day["steps"], time.monotonic()
    cuts = chosen_cuts(steps)
    exposed = len(pico.EXPOSED)
    failures = []
    with contextlib.ExitStack() as stack:
        bench = ChipBench(day["flash"], stack)
        for index, at, mode in cuts:
            entry = steps[index]
            problems = cut_once(bench, entry, at, mode)
            if problems:
                failures.append("%s, operation %d, %s: %s" % (
                    entry["step"].name, at, mode, "; ".join(problems)))
        panics = bench.panics
    total = sum(entry["ops"] - entry["booted"] for entry in steps)
    with capsys.disabled():
        print("\nesp32 power cuts (%s): %d flash operations in %d steps (%s), %d cuts "
              "(%d before, %d partial), %d found the value exposed and redrew it, "
              "%d failures; the day recorded in %.0f s (%d panics), the cuts in %.0f s "
              "(%d panics)" % (
                  "full" if FULL else CHOSEN or "budget %d" % BUDGET, total, len(steps),
                  ", ".join("%s: %d" % (e["step"].name, e["ops"] - e["booted"]) for e in steps),
                  len(cuts), sum(mode == "before" for _, _, mode in cuts),
                  sum(mode == "partial" for _, _, mode in cuts),
                  len(pico.EXPOSED) - exposed, len(failures), day["seconds"], day["panics"],
                  time.monotonic() - started, panics))
    assert not failures, "\n".join(failures)
    if len(cuts) >= 2 * total:
        # Every operation cut in both modes: some cut falls after the hit's
        # records landed and before its meter record, and must expose the value.
        assert len(pico.EXPOSED) > exposed, "no cut of the round that hits exposed its value"
