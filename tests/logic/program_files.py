# A program's build as files, and its digest computed from docs/host-link.md's
# description alone (not from table/program.py): SHA-256 of the seed, then
# the files by name, each as its name, a newline, its length in decimal, a
# newline and its bytes. For the tests of `authenticate` and the program check.
import hashlib

from table.program import PIECE

FILES = {"lib/board.mpy": b"B" * 10, "lib/uth/cards.mpy": b"C" * (PIECE + 7),
         "lib/mystery/bonus.mpy": b"M" * 3, "main.py": b"import board\n"}


def write_build(root):
    write_files(root, FILES)


def write_files(root, files):
    import os

    for name, data in files.items():
        parts = name.split("/")
        for depth in range(1, len(parts)):
            try:
                os.mkdir(root + "/" + "/".join(parts[:depth]))
            except OSError:
                pass
        with open(root + "/" + name, "wb") as file:
            file.write(data)


def expected(seed, files):
    # The documented order: by name; each as name, newline, length, newline, bytes.
    digest = hashlib.sha256(bytes(int(seed[i:i + 2], 16) for i in range(0, len(seed), 2)))
    for name in sorted(files):
        digest.update(name.encode() + b"\n" + str(len(files[name])).encode() + b"\n")
        digest.update(files[name])
    return "".join("%02x" % byte for byte in digest.digest())
