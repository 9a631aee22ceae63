# The flash reads the program check at start costs (docs/benchmarks.md, "The
# program check at start"), counted on the unix port: a program of files (the
# folder given, default firmware/, as lib/, with a main.py) on a RAM flash with
# each board's littlefs mount (ramflash.py), hashed as table/program.py walks
# it, the sizes taken from the listing; beside it the same walk with a stat of
# every entry and of every file before it is read, as the walk was before
# 6 December 2026, for the ratio. Every read is one flash operation, which an
# emulated ESP32 pays tens of milliseconds for (docs/boards.md).
# Usage: MICROPYPATH=firmware:tests/logic .venv/bin/micropython -X heapsize=4M \
#            bench/program_walk.py [FOLDER]
import hashlib
import os
import sys

from ramflash import BOARD_MOUNTS, RamFlash, new_chip
from table.program import files_program

MOUNT = "/walk"
BLOCKS = 256
_DIR = 0x4000


def _copy(source, target):
    for entry in os.ilistdir(source):
        path, copy = source + "/" + entry[0], target + "/" + entry[0]
        if entry[1] == _DIR:
            os.mkdir(copy)
            _copy(path, copy)
        elif entry[0].endswith(".py") or entry[0].endswith(".mpy"):
            with open(path, "rb") as file:
                data = file.read()
            with open(copy, "wb") as file:
                file.write(data)


def _stat_walk(folder, name):
    # The walk with a stat of each entry (then each file stat'ed again as read).
    found = []
    for entry in os.listdir(folder):
        path, below = folder + "/" + entry, name + "/" + entry
        if os.stat(path)[0] & _DIR:
            found += _stat_walk(path, below)
        else:
            found.append((below, path))
    return found


def _stat_pieces(lib, main):
    files = sorted(_stat_walk(lib, "lib") + [("main.py", main)])
    for name, path in files:
        yield ("%s\n%d\n" % (name, os.stat(path)[6])).encode()
        with open(path, "rb") as file:
            yield file.read()


def _hashed(pieces):
    sha = hashlib.sha256()
    count = 0
    for piece in pieces:
        sha.update(piece)
        count += len(piece)
    return sha.digest(), count


def measure(board, folder):
    chip = new_chip(BLOCKS)
    os.VfsLfs2.mkfs(RamFlash(chip), **BOARD_MOUNTS[board])
    os.mount(os.VfsLfs2(RamFlash(chip), **BOARD_MOUNTS[board]), MOUNT)
    os.mkdir(MOUNT + "/lib")
    _copy(folder, MOUNT + "/lib")
    with open(MOUNT + "/main.py", "w") as file:
        file.write("import board\n")
    os.umount(MOUNT)
    figures = {}
    for way in ("listing", "stat"):
        device = RamFlash(chip)
        os.mount(os.VfsLfs2(device, **BOARD_MOUNTS[board]), MOUNT)
        lib, main = MOUNT + "/lib", MOUNT + "/main.py"
        if way == "listing":
            digest, count = _hashed(files_program(lib, main)()[1])
        else:
            digest, count = _hashed(_stat_pieces(lib, main))
        figures[way] = (device.reads, digest, count)
        os.umount(MOUNT)
    assert figures["listing"][1] == figures["stat"][1], "the two walks hashed different bytes"
    reads, stat_reads = figures["listing"][0], figures["stat"][0]
    print("%s's mount: %d bytes hashed; %d flash reads with the listing's sizes, %d with a "
          "stat of each (%.2fx as many)" % (board, figures["listing"][2], reads, stat_reads,
                                            stat_reads / reads))


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "firmware"
    for board in sorted(BOARD_MOUNTS):
        measure(board, folder)


main()
