# A long byte stream from the firmware's own generator (mystery/drbg.py) for a
# lab's statistical tests (docs/mystery.md, "The lab's tests"): instantiated
# from the host's os.urandom, reseeded from it every 64 generates of 4 KiB, as
# the board reseeds at each draw. Runs on the MicroPython unix port or CPython:
#   MICROPYPATH=firmware micropython tools/drbg_stream.py BYTES > stream.bin
#   dieharder -g 201 -f stream.bin -a
import os
import sys

from mystery import drbg

CHUNK = 4096
RESEED_EVERY = 64


def main(total):
    out = sys.stdout.buffer
    generator = drbg.instantiate(os.urandom(32), os.urandom(16), b"lab stream")
    written = chunks = 0
    while written < total:
        if chunks % RESEED_EVERY == RESEED_EVERY - 1:
            generator.reseed(os.urandom(32))
        block = generator.generate(min(CHUNK, total - written))
        out.write(block)
        written += len(block)
        chunks += 1


if __name__ == "__main__":
    main(int(sys.argv[1]))
