# TEST-ONLY, on the emulated ESP32's flash for its power-cut proof
# (test_esp32_power_cut.py), never part of a build: the vfs partition
# (flashbdev.bdev, an esp32.Partition) wrapped so that the image's own
# littlefs runs on it unchanged, while every program and erase is counted
# from power-on and reported on the console ("flash-op N"), and the armed
# one is the power cut:
#
#   before   it never reaches the chip
#   partial  a program writes only the first half of its bytes (a torn
#            page), an erase clears only the first half of its block; the
#            emulated Pico's cut does the same (pico_emu/emulator.mjs)
#
# then "flash-cut N kind block offset length sum" on the console (sum: of
# the bytes the partial cut programmed, modulo 10**7, so that the host can
# find them in QEMU's flash file) and the chip does nothing more,
# waiting for the host to kill QEMU. The arm is written by the host, while
# QEMU is off, into the phy_init partition (4 KB this image never reads:
# no radio is started), outside the littlefs, so arming a power-on changes
# nothing the controller's flash holds.
#
# The counting path allocates nothing: the console line is a preallocated
# bytearray whose digits are written in place.
import sys
import time

_ERASE = 6  # ioctl: MP_BLOCKDEV_IOCTL_BLOCK_ERASE
_BLOCK = 4096  # esp32.Partition's block, the chip's erase sector
ARM = b"CUTARM"  # the first bytes of phy_init when a power-on is armed
# The console lines, digits written in place: "flash-op" N kind ("p" a
# program, "e" an erase); "flash-cut" N kind block offset length.
_OP = b"\r\nflash-op       0 x\r\n"
_OP_N, _OP_KIND = 18, 19  # the end of its 7-wide number, its kind
_CUT = b"\r\nflash-cut       0 x       0       0       0       0\r\n"
# (its fields end at 19, 29, 37, 45 and 53)
_CUT_KIND = 20


class CutFlash:
    # The partition behind littlefs, counted, cut at operation `at` (0: never).
    def __init__(self, part, at=0, mode=b"before", out=None):
        self.part = part
        self.at = at
        self.mode = mode
        self.ops = 0
        self.dead = False
        self.out = out or sys.stdout.buffer
        self.op_line = bytearray(_OP)
        self.cut_line = bytearray(_CUT)
        self.scratch = bytearray(_BLOCK)
        self.sum = 0

    def readblocks(self, block, buf, offset=0):
        return self.part.readblocks(block, buf, offset)

    def writeblocks(self, block, buf, offset=0):
        if not self._is_cut(b"p"):
            return self.part.writeblocks(block, buf, offset)
        if self.mode == b"partial":
            # A torn program: its second half left as the chip had it
            # (programming 0xFF changes no NOR cell). buf is littlefs's own
            # cache, which nothing reads after the cut.
            for i in range(len(buf) // 2, len(buf)):
                buf[i] = 0xFF
            self.part.writeblocks(block, buf, offset)
            self._sum(buf, 0, len(buf) // 2)
        self._cut(b"p", block, offset, len(buf))

    def ioctl(self, op, arg):
        if op != _ERASE:
            return self.part.ioctl(op, arg)
        if not self._is_cut(b"e"):
            return self.part.ioctl(op, arg)
        if self.mode == b"partial":
            # A half-done erase: the block's old second half programmed back
            # over a whole erase, so only its first half reads erased.
            buf = self.scratch
            self.part.readblocks(arg, buf, 0)
            for i in range(_BLOCK // 2):
                buf[i] = 0xFF
            self.part.ioctl(_ERASE, arg)
            self.part.writeblocks(arg, buf, 0)
            self._sum(buf, _BLOCK // 2, _BLOCK)
        self._cut(b"e", arg, 0, _BLOCK)

    def _is_cut(self, kind):
        # Counts and reports the operation; True when it is the armed one.
        if self.dead:
            self.stop()  # the power is gone: nothing more reaches the chip
        self.ops += 1
        line = self.op_line
        _digits(line, _OP_N, self.ops)
        line[_OP_KIND] = kind[0]
        self.out.write(line)
        return self.ops == self.at

    def _cut(self, kind, block, offset, length):
        self.dead = True
        line = self.cut_line
        _digits(line, 19, self.ops)
        _digits(line, 29, block)
        _digits(line, 37, offset)
        _digits(line, 45, length)
        _digits(line, 53, self.sum)
        line[_CUT_KIND] = kind[0]
        self.out.write(line)
        self.stop()

    def _sum(self, buf, start, end):
        total = 0
        for i in range(start, end):
            total = (total + buf[i]) % 10000000
        self.sum = total

    def stop(self):
        # The chip after the power cut: idle for ever, interrupts on (no
        # watchdog fires), until the host kills QEMU.
        while True:
            time.sleep_ms(100)


def _digits(line, end, value):
    # value's decimal digits right-aligned in a 7-wide field ending at `end`
    # (exclusive), spaces before them; small ints only, nothing allocated.
    i = end
    while True:
        i -= 1
        line[i] = 48 + value % 10
        value //= 10
        if not value:
            break
    while i > end - 7:
        i -= 1
        line[i] = 32


def armed(part):
    # The partition wrapped with this power-on's arm from phy_init.
    import esp32

    head = bytearray(32)
    esp32.Partition.find(esp32.Partition.TYPE_DATA, label="phy_init")[0].readblocks(0, head)
    words = bytes(head).split()
    if len(words) < 3 or words[0] != ARM:
        return CutFlash(part)
    return CutFlash(part, int(words[1]), words[2])
