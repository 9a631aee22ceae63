# The program this board runs, as `authenticate` (authenticate.py) and the
# program check at start (program_check.py) read it: a function that gives
# (kind, pieces[, the code beside it]), the pieces read when asked:
#   an image: its bytes in flash as programmed (flash_image.py gives its extent
#             from the image itself), read in place through a memoryview;
#   files:    the build's files as `make build` lays them out, sorted by name
#             ("lib/board.mpy", "lib/mystery/bonus.mpy", ..., "main.py"), each
#             as its name, a newline, its length in decimal, a newline, then
#             its bytes; code_outside names the code files beside the build,
#             which the digest does not cover.
import os

from micropython import const

PIECE = const(2048)  # bytes hashed a turn, short enough for the ticks (docs/host-link.md)
_DIR = const(0x4000)


def image_pieces(start, length):
    # The bytes at start..start+length (an XIP address range), read in place.
    import uctypes

    flash = memoryview(uctypes.bytearray_at(start, length))
    for at in range(0, length, PIECE):
        yield flash[at:at + PIECE]


def _entries(folder):
    # (name, is a folder, size) of each entry in folder ("": the root). littlefs
    # and FAT give the size with the listing (os.ilistdir), so the walk reads no
    # entry's metadata twice: on a board each look-up is flash operations, and an
    # emulated ESP32 pays tens of milliseconds for each (docs/benchmarks.md).
    # Elsewhere (a listing without sizes, or CPython's os) each entry is stat'ed.
    listing = getattr(os, "ilistdir", None)
    where = folder or "/"
    for entry in listing(where) if listing else ((name, 0, 0) for name in os.listdir(where)):
        if len(entry) > 3 and entry[1]:
            yield entry[0], entry[1] == _DIR, entry[3]
        else:
            found = os.stat(folder + "/" + entry[0])
            yield entry[0], found[0] & _DIR == _DIR, found[6]


def _files(folder, name):
    # (name, path, size) of every file under folder, name its path below as "name/...".
    found = []
    for entry, is_folder, size in _entries(folder):
        path, below = folder + "/" + entry, name + "/" + entry
        if is_folder:
            found += _files(path, below)
        else:
            found.append((below, path, size))
    return found


def build_files(lib, main):
    # The build's files: those under the lib folder and main.py, in name order.
    files = [found for found in _files(lib, "lib") if found[1] != main]
    files.append(("main.py", main, os.stat(main)[6]))
    files.sort()
    return files


def file_pieces(files):
    buffer = bytearray(PIECE)
    view = memoryview(buffer)
    for name, path, size in files:
        yield ("%s\n%d\n" % (name, size)).encode()
        with open(path, "rb") as file:
            while True:
                count = file.readinto(buffer)
                if not count:
                    break
                yield view[:count]


def code_outside(lib, main, folder=None, name=""):
    # The files beside the program that the interpreter can run or import,
    # by their path from main.py's folder: every .py and .mpy there and in
    # its folders, lib and main.py left out (/boot.py runs at every start, and
    # the folder is on sys.path). The digest does not cover them; the reply
    # names them so the host can say so.
    if folder is None:
        folder = main.rsplit("/", 1)[0]
    found = []
    if folder == lib:  # main.py inside lib: the program is the whole folder
        return found
    for entry, is_folder, _ in _entries(folder):
        path, below = folder + "/" + entry, name + entry
        if path in (lib, main):
            continue
        if is_folder:
            found += code_outside(lib, main, path, below + "/")
        elif entry.endswith(".py") or entry.endswith(".mpy"):
            found.append(below)
    found.sort()
    return found


def files_program(lib, main):
    # A program of files: ("files", pieces, the code beside it), taken when asked.
    return lambda: ("files", file_pieces(build_files(lib, main)), code_outside(lib, main))
