# A RAM flash block device for the MicroPython unix port, mounted with
# os.VfsLfs2 to prove the meter store against power cuts (power_cut_script.py).
#
# It behaves like a board's NOR flash: an erase sets a whole block to 0xFF,
# a program can only clear bits (it ANDs the new bytes into the old ones), and
# every program and erase is one counted flash operation. Given cut_at, the
# operation with that number is where the power goes, in one of three ways:
#   LOST  the operation does nothing,
#   HALF  only the first half of its bytes is programmed (of the block erased),
#   DONE  the operation completes,
# and in every way the device is dead from then on: that operation and every
# later call return -EIO and never touch the bytes again, so a reboot can
# mount a new device over the surviving bytes. A fourth way is not a power cut:
#   FULL  the flash runs out of room there: that program or erase and every
#         later one answer -ENOSPC and change nothing; reads go on,
# as a filesystem that fills under a commit answers it at whatever point the
# space runs out. (Raising from the device also
# gets through littlefs, but it jumps out of lfs_file_close before the file is
# marked closed, and the file's finaliser later calls the dead device again;
# an error code is what VfsLfs2 handles cleanly: the failed call raises
# OSError(EIO) and the file is closed.)
#
# The block-device methods allocate nothing (littlefs may call them with the
# heap locked): the flash is a list of preallocated bytearrays, one per erase
# block, copied by viper loops; counters and results are small ints. One
# bytearray a block rather than one for the whole chip: after the controller's
# modules are compiled, a 192 KB heap may no longer hold 64-96 KB in one piece.
# Or the bytes live in a file (FileChip), out of the heap, as a board's flash
# is out of its heap.
#
# MicroPython only (viper); pytest never imports this module.
from array import array

import micropython

# The keywords each board's MicroPython gives os.VfsLfs2 for its filesystem:
# the Pico's ports/rp2/modules/_boot.py asks progsize=256 (its flash programs
# in 256-byte pages; the cache, 4 x 256, lets a file of up to 512 bytes live
# inline in metadata); the ESP32 mounts its vfs partition with the defaults.
BOARD_MOUNTS = {"pico": {"progsize": 256}, "esp32": {}}

LOST = 0
HALF = 1
DONE = 2
FULL = 3
MODES = ("lost", "half", "done")  # the power cuts

_IOCTL_INIT = 1
_IOCTL_DEINIT = 2
_IOCTL_SYNC = 3
_IOCTL_BLOCK_COUNT = 4
_IOCTL_BLOCK_SIZE = 5
_IOCTL_BLOCK_ERASE = 6

_EIO = -5  # what a dead device answers; VfsLfs2 raises OSError(EIO)
_ENOSPC = -28  # what a full one answers (FULL); littlefs passes it on


@micropython.viper
def _read(dst: ptr8, src: ptr8, start: int, n: int):  # noqa: F821
    i = 0
    while i < n:
        dst[i] = src[start + i]
        i += 1


@micropython.viper
def _program(dst: ptr8, start: int, src: ptr8, n: int):  # noqa: F821
    i = 0
    while i < n:
        dst[start + i] = dst[start + i] & src[i]
        i += 1


@micropython.viper
def _erase(dst: ptr8, n: int):  # noqa: F821
    i = 0
    while i < n:
        dst[i] = 0xFF
        i += 1


@micropython.viper
def copy_block(dst: ptr8, src: ptr8, n: int):  # noqa: F821
    # dst[:n] = src[:n] without a slice.
    i = 0
    while i < n:
        dst[i] = src[i]
        i += 1


@micropython.viper
def flip_bits(block: ptr8, index: int, mask: int):  # noqa: F821
    # A fault in the flash itself: the bits of mask inverted at block[index].
    block[index] = block[index] ^ mask


def erase(block):
    # Every byte of one block 0xFF, as an erase leaves it.
    _erase(block, len(block))


def new_chip(block_count, block_size=4096):
    # The flash's bytes: one bytearray per erase block, every byte 0xFF.
    blocks = []
    for _ in range(block_count):
        block = bytearray(block_size)
        _erase(block, block_size)
        blocks.append(block)
    return blocks


class _RamChip:
    # The bytes of new_chip() behind the three operations RamFlash makes.
    def __init__(self, blocks):
        self.blocks = blocks
        self.block_size = len(blocks[0])
        self.block_count = len(blocks)

    def read(self, block, buf, offset):
        _read(buf, self.blocks[block], offset, len(buf))

    def program(self, block, offset, buf, n):
        _program(self.blocks[block], offset, buf, n)

    def erase(self, block, n):
        _erase(self.blocks[block], n)


class FileChip:
    # The flash's bytes in a file rather than in the heap, as a board keeps
    # its flash outside its heap: a proof that runs the whole controller on
    # it then has the heap a board has. Same operations as _RamChip, a block
    # at a time through one buffer allocated here; the file is unbuffered,
    # and seek, readinto and write take the caller's buffer, so the
    # operations allocate nothing either. buffer: a block's worth of bytes
    # to use as that buffer, for a caller that took it while the heap was
    # whole (None: one is allocated).
    def __init__(self, path, block_count, block_size=4096, buffer=None):
        self.block_size = block_size
        self.block_count = block_count
        self.buffer = bytearray(block_size) if buffer is None else buffer
        self.file = open(path, "w+b")
        _erase(self.buffer, block_size)
        for _ in range(block_count):
            self.file.write(self.buffer)

    def erase_all(self):
        _erase(self.buffer, self.block_size)
        for block in range(self.block_count):
            self.file.seek(block * self.block_size)
            self.file.write(self.buffer)

    def close(self):
        self.file.close()

    # A block's bytes for a proof to look at: loaded into the one buffer,
    # good until the next block is loaded (what a loop over the chip wants).
    def __len__(self):
        return self.block_count

    def __getitem__(self, block):
        self._load(block)
        return self.buffer

    def __iter__(self):
        for block in range(self.block_count):
            yield self[block]

    # And what a proof writes to the flash behind littlefs's back.
    def write(self, block, content):
        # The block erased, then content at its start (new_chip's blocks and
        # copy_block do the same in RAM).
        _erase(self.buffer, self.block_size)
        copy_block(self.buffer, content, len(content))
        self._store(block)

    def flip(self, block, index, mask):
        self._load(block)
        flip_bits(self.buffer, index, mask)
        self._store(block)

    def read(self, block, buf, offset):
        self.file.seek(block * self.block_size + offset)
        self.file.readinto(buf)

    def _load(self, block):
        self.file.seek(block * self.block_size)
        self.file.readinto(self.buffer)

    def _store(self, block):
        self.file.seek(block * self.block_size)
        self.file.write(self.buffer)

    def program(self, block, offset, buf, n):
        self._load(block)
        _program(self.buffer, offset, buf, n)
        self._store(block)

    def erase(self, block, n):
        self._load(block)
        _erase(self.buffer, n)
        self._store(block)


class RamFlash:
    def __init__(self, blocks, cut_at=-1, cut_mode=DONE):
        # blocks: the flash's bytes from new_chip(), used in place, not copied,
        # or a FileChip. cut_at: the number of the flash operation (program
        # or erase, counted from 0 on this device) where the power goes, or
        # -1 for none.
        self.blocks = blocks
        self.chip = blocks if isinstance(blocks, FileChip) else _RamChip(blocks)
        self.block_size = self.chip.block_size
        self.block_count = self.chip.block_count
        self.cut_at = cut_at
        self.cut_mode = cut_mode
        self.ops = 0  # programs + erases started
        self.programs = 0
        self.erases = 0
        self.reads = 0
        self.dead = False
        self.full = False
        self.erase_counts = array("I", bytes(4 * self.block_count))  # per block

    def _cut_now(self):
        # True when this operation is the one the power goes at.
        number = self.ops
        self.ops += 1
        return number == self.cut_at

    def readblocks(self, block, buf, offset=0):
        if self.dead:
            return _EIO
        self.reads += 1
        self.chip.read(block, buf, offset)
        return 0

    def _surviving(self, n):
        # How many of an operation's n bytes reach the flash: all of them,
        # or, if power goes during it, half (HALF) or none (LOST: -1).
        if not self._cut_now():
            return n
        if self.cut_mode == FULL:
            self.full = True
            return -1
        self.dead = True
        if self.cut_mode == LOST:
            return -1
        return n // 2 if self.cut_mode == HALF else n

    def writeblocks(self, block, buf, offset=0):
        if self.dead:
            return _EIO
        n = -1 if self.full else self._surviving(len(buf))
        if n < 0:
            return _ENOSPC if self.full else _EIO
        self.programs += 1
        self.chip.program(block, offset, buf, n)
        return _EIO if self.dead else 0

    def ioctl(self, op, arg):
        if op == _IOCTL_BLOCK_COUNT:
            return self.block_count
        if op == _IOCTL_BLOCK_SIZE:
            return self.block_size
        if self.dead:
            return _EIO
        if op == _IOCTL_BLOCK_ERASE:
            n = -1 if self.full else self._surviving(self.block_size)
            if n < 0:
                return _ENOSPC if self.full else _EIO
            self.erases += 1
            self.erase_counts[arg] += 1
            self.chip.erase(arg, n)
            return _EIO if self.dead else 0
        if op == _IOCTL_INIT or op == _IOCTL_DEINIT or op == _IOCTL_SYNC:
            return 0
        return None
