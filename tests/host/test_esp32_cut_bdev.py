# The emulated ESP32's TEST-ONLY cut block device (esp32_cut_bdev.py), on
# CPython over a NOR flash model (a program can only clear bits, an erase
# sets a whole 4096-byte block): the operations counted and reported, and
# at the armed one nothing, or half of it, reaching the flash.
import io
import re

import pytest
from esp32_cut_bdev import CutFlash

BLOCK = 4096


class Nor:
    # An esp32.Partition's block interface over NOR cells.
    def __init__(self, blocks=4):
        self.cells = bytearray(b"\xff" * BLOCK * blocks)

    def readblocks(self, block, buf, offset=0):
        start = block * BLOCK + offset
        buf[:] = self.cells[start:start + len(buf)]

    def writeblocks(self, block, buf, offset=0):
        start = block * BLOCK + offset
        for i, byte in enumerate(buf):
            self.cells[start + i] &= byte

    def ioctl(self, op, arg):
        if op == 6:
            self.cells[arg * BLOCK:(arg + 1) * BLOCK] = b"\xff" * BLOCK
            return 0
        return {4: len(self.cells) // BLOCK, 5: BLOCK}.get(op, 0)


class Stopped(Exception):
    pass


class Flash(CutFlash):
    def stop(self):
        raise Stopped


def flash_with(nor, at=0, mode=b"before"):
    return Flash(nor, at, mode, out=io.BytesIO())


def lines(flash):
    return [line for line in flash.out.getvalue().decode().split("\r\n") if line]


def test_uncut_operations_reach_the_flash_and_are_counted():
    nor = Nor()
    flash = flash_with(nor)
    flash.ioctl(6, 1)
    flash.writeblocks(1, bytearray(b"\x00" * 64), 32)
    assert flash.ioctl(4, 0) == 4 and flash.ioctl(5, 0) == BLOCK  # not counted
    buf = bytearray(96)
    flash.readblocks(1, buf, 0)
    assert buf == b"\xff" * 32 + b"\x00" * 64
    assert [re.split(" +", line) for line in lines(flash)] == [
        ["flash-op", "1", "e"], ["flash-op", "2", "p"]]


@pytest.mark.parametrize("mode", [b"before", b"partial"])
def test_cut_program(mode):
    nor = Nor()
    flash = flash_with(nor, at=2, mode=mode)
    flash.writeblocks(0, bytearray(b"\x11" * 32), 0)
    with pytest.raises(Stopped):
        flash.writeblocks(2, bytearray(b"\x22" * 256), 512)
    data = nor.cells[2 * BLOCK + 512:2 * BLOCK + 768]
    if mode == b"before":
        assert data == b"\xff" * 256
    else:
        assert data == b"\x22" * 128 + b"\xff" * 128
    assert nor.cells[:32] == b"\x11" * 32
    assert re.split(" +", lines(flash)[-1]) == ["flash-cut", "2", "p", "2", "512", "256", str(
        0 if mode == b"before" else 0x22 * 128)]
    with pytest.raises(Stopped):  # after the cut nothing more reaches the chip
        flash.writeblocks(3, bytearray(32), 0)
    assert nor.cells[3 * BLOCK:3 * BLOCK + 32] == b"\xff" * 32


@pytest.mark.parametrize("mode", [b"before", b"partial"])
def test_cut_erase(mode):
    nor = Nor()
    nor.cells[BLOCK:2 * BLOCK] = bytes(range(256)) * 16
    old = bytes(nor.cells[BLOCK:2 * BLOCK])
    flash = flash_with(nor, at=1, mode=mode)
    with pytest.raises(Stopped):
        flash.ioctl(6, 1)
    block = bytes(nor.cells[BLOCK:2 * BLOCK])
    if mode == b"before":
        assert block == old
    else:
        assert block == b"\xff" * (BLOCK // 2) + old[BLOCK // 2:]
    assert re.split(" +", lines(flash)[-1]) == ["flash-cut", "1", "e", "1", "0", "4096", str(
        0 if mode == b"before" else sum(old[BLOCK // 2:]))]


def test_large_counts_fill_the_field():
    flash = flash_with(Nor())
    flash.ops = 1_234_566
    flash.writeblocks(0, bytearray(32), 0)
    assert lines(flash) == ["flash-op 1234567 p"]


# On MicroPython (the unix port) with the heap locked: counting, a torn
# program, a half erase and the cut's report allocate nothing (a MemoryError
# would name the line); only the test's own stop raises.
HEAP_LOCKED = """
import sys, micropython
sys.path.insert(0, %r)
from esp32_cut_bdev import CutFlash
class Nor:
    def __init__(self):
        self.cells = bytearray(b"\\xff" * 4096 * 2)
    def readblocks(self, block, buf, offset=0):
        for i in range(len(buf)):
            buf[i] = self.cells[block * 4096 + offset + i]
    def writeblocks(self, block, buf, offset=0):
        for i in range(len(buf)):
            self.cells[block * 4096 + offset + i] &= buf[i]
    def ioctl(self, op, arg):
        if op == 6:
            for i in range(4096):
                self.cells[arg * 4096 + i] = 0xFF
        return 0
class Stopped(CutFlash):
    def stop(self):
        micropython.heap_unlock()
        print("STOPPED")
        raise SystemExit
def run(at, mode, erase):
    flash = Stopped(Nor(), at, mode)
    buf = bytearray(b"\\x22" * 64)
    micropython.heap_lock()
    flash.writeblocks(0, buf, 0)
    flash.ioctl(6, 1) if erase else flash.writeblocks(1, buf, 0)
run(%d, %r, %s)
"""


@pytest.mark.parametrize("mode", [b"before", b"partial"])
@pytest.mark.parametrize("erase", [False, True])
def test_cut_allocates_nothing_on_micropython(micropython, mode, erase, tmp_path):
    import subprocess
    from pathlib import Path

    script = tmp_path / "cut.py"
    script.write_text(HEAP_LOCKED % (str(Path(__file__).parent), 2, mode, erase))
    done = subprocess.run([micropython, str(script)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "STOPPED" in done.stdout, done.stdout + done.stderr
    assert re.search(r"flash-cut +2 %s " % ("e" if erase else "p"), done.stdout), done.stdout
