# A byte stream from the generator on the emulated Pico itself, for a lab's
# statistical tests (docs/mystery.md, "The lab's tests"). The official rp2
# image on a new flash, the firmware's mystery/drbg.py and entropy.py copied
# to it, and on the chip: the generator instantiated from the chip's own
# os.urandom (pico_rand) and nothing from a host, the weakest start a board
# can have; reseeded before every 4 KiB generate from os.urandom and the
# timing fold (entropy.for_reseed), as a board reseeds at each draw. The
# chip prints the bytes as base64 lines; they are written to FILE as raw
# bytes, with the count and SHA-256 on stdout. A lab run, not `make test`:
#   .venv/bin/python tools/pico_drbg_stream.py BYTES FILE
#   dieharder -g 201 -f FILE -d 100 -t 100000 -p 8   (see docs/mystery.md)
import binascii
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MPREMOTE = ROOT / ".venv" / "bin" / "mpremote"
FIRMWARE = ROOT / "firmware" / "mystery"
BOOT_WAIT = 120.0

CHIP_SCRIPT = r"""
import binascii, os
from mystery import drbg, entropy

BLOCK = 4096
total = %(total)d
generator = drbg.instantiate(*entropy.for_instantiation(os.urandom, b""))
written = 0
while written < total:
    generator.reseed(*entropy.for_reseed(os.urandom))
    block = generator.generate(min(BLOCK, total - written))
    for at in range(0, len(block), 768):  # 1,024 characters a line
        print("S" + binascii.b2a_base64(block[at:at + 768]).decode().strip())
    written += len(block)
print("END %%d" %% written)
"""


def mpremote(port, *args, timeout=600):
    done = subprocess.run([str(MPREMOTE), "connect", port, *args], capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError("mpremote %s failed:\n%s%s" % (" ".join(args), done.stdout,
                                                          done.stderr))
    return done.stdout


def copy_generator(port):
    # Only the two modules the stream needs, in their package.
    mpremote(port, "mkdir", ":mystery")
    for name in ("__init__.py", "drbg.py", "entropy.py"):
        mpremote(port, "cp", str(FIRMWARE / name), ":mystery/" + name)


def stream_bytes(text, total):
    # The chip's base64 lines back to bytes, checked against its own count.
    lines = text.splitlines()
    ends = [line for line in lines if line.startswith("END ")]
    if not ends or int(ends[-1].split()[1]) != total:
        raise RuntimeError("the chip's stream did not end with END %d" % total)
    data = b"".join(binascii.a2b_base64(line[1:]) for line in lines if line.startswith("S"))
    if len(data) != total:
        raise RuntimeError("%d bytes came back of the %d sent" % (len(data), total))
    return data


def chip_stream(total):
    from uthctl.boards.pico import PicoBoard

    with tempfile.TemporaryDirectory(prefix="uth-pico-stream-") as tmp:
        log = open(os.path.join(tmp, "board.log"), "w")
        board = PicoBoard(os.path.join(tmp, "pico.img"), realtime=False, stderr=log,
                          image="official")
        with board:
            came = board.wait_started(BOOT_WAIT)
            if came["state"] != "repl":
                raise RuntimeError("a new flash did not come up at the REPL: %s" % came)
            copy_generator(board.serial_path)
            script = Path(tmp) / "stream.py"
            script.write_text(CHIP_SCRIPT % {"total": total})
            text = mpremote(board.serial_path, "run", str(script), timeout=6 * 3600)
        log.close()
    return stream_bytes(text, total)


def main(total, path):
    started = time.monotonic()
    data = chip_stream(total)
    Path(path).write_bytes(data)
    print("%d bytes from the emulated Pico's generator in %.0f s, SHA-256 %s" % (
        len(data), time.monotonic() - started, hashlib.sha256(data).hexdigest()))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tools/pico_drbg_stream.py BYTES FILE")
    sys.exit(main(int(sys.argv[1]), sys.argv[2]))
