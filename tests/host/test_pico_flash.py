# The emulated Pico's flash, byte for byte: the image's own flash driver
# (rp2.Flash, the block device littlefs sits on) erases and programs a block
# no file uses, and the --flash file shows what NOR flash would hold after
# each kind of cut: nothing of the cut operation ("before"), the first half
# of a page program's bytes (a torn program), the first half of an erase
# ("partial"). Expected bytes follow from NOR semantics alone: an erase sets
# every bit, a program can only clear bits.
import os
import time

import pytest

from uthctl.boards import pico_image

WHY_NOT = pico_image.unavailable(pico_image.OFFICIAL)
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason="emulated Pico: %s" % WHY_NOT),
              pytest.mark.board]

if WHY_NOT is None:
    from uthctl.boards.pico import PicoBoard

BLOCK = 300  # of the region's 352 blocks of 4 KiB; a fresh littlefs uses the first few
SIZE = 4096
BOOT_WAIT = 60.0


def block_of(flash):
    with open(flash, "rb") as image:
        image.seek(BLOCK * SIZE)
        return image.read(SIZE)


def type_at_repl(board, *lines):
    # As a person at the REPL: one line at a time, the board's answers unread.
    fd = os.open(board.serial_path, os.O_WRONLY | os.O_NOCTTY)
    try:
        for line in lines:
            os.write(fd, line.encode() + b"\r\n")
    finally:
        os.close(fd)


def wait_until(predicate, what, timeout=BOOT_WAIT):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for " + what
        time.sleep(0.05)


def run_on_fresh_power(board, lines, cut=None):
    # One power-on at the REPL: optionally armed to cut at its at-th
    # operation counted from this power-on's REPL, then the lines typed.
    board.power(True)
    assert board.wait_started(BOOT_WAIT)["state"] == "repl"
    ops = board.state()["flash_ops"]
    booted = ops["erase"] + ops["program"]
    if cut is not None:
        board.power(False)
        board.arm_cut(booted + cut[0], cut[1])
        board.power(True)
        assert board.wait_started(BOOT_WAIT)["state"] == "repl"
    type_at_repl(board, "import rp2", "f = rp2.Flash()", *lines, "print('done')")
    if cut is None:
        # The typed program, counted from the REPL: the first boot's littlefs
        # format programs too, and on a busy host the lines run later.
        wait_until(lambda: board.state()["flash_ops"]["program"] > ops["program"], "the writes")
        board.power(False)
        return None
    wait_until(lambda: not board.state()["powered"], "the cut")
    return board.state()["cut"]


ERASE = "f.ioctl(6, %d)" % BLOCK
PROGRAM_ZEROS = "f.writeblocks(%d, bytes(%d), 0)" % (BLOCK, SIZE)  # program only, no erase


def test_pico_flash_cuts_leave_what_nor_flash_would(tmp_path):
    flash = tmp_path / "flash.img"
    board = PicoBoard(flash=flash, realtime=False, image=pico_image.OFFICIAL)  # at its REPL
    with board:
        board.power(False)
        run_on_fresh_power(board, [ERASE, PROGRAM_ZEROS])
        zeros = block_of(flash)
        assert zeros == bytes(SIZE)  # written through, the emulator killed after

        cut = run_on_fresh_power(board, [ERASE], cut=(1, "before"))
        assert (cut["mode"], cut["kind"]) == ("before", "erase")
        assert block_of(flash) == zeros  # the erase never reached the chip

        cut = run_on_fresh_power(board, [ERASE], cut=(1, "partial"))
        assert (cut["mode"], cut["kind"]) == ("partial", "erase")
        assert block_of(flash) == b"\xff" * (SIZE // 2) + bytes(SIZE // 2)

        cut = run_on_fresh_power(board, [ERASE, PROGRAM_ZEROS], cut=(2, "partial"))
        assert (cut["mode"], cut["kind"]) == ("partial", "program")
        assert block_of(flash) == bytes(SIZE // 2) + b"\xff" * (SIZE // 2)  # a torn program
