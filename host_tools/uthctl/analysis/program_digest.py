# What a board's `authenticate` reply must say, computed on the host from the
# approved program (docs/host-link.md, "Program authentication"): SHA-256 of
# the seed's bytes followed by
#   an image (a .uf2 file): its pages' bytes in address order, as programmed
#       from the start of flash, contiguous (a gap or a second region is refused);
#   a build (make build's folder for a board, e.g. build/rp2040_pico): each
#       file under it, sorted by its path from there ("lib/board.mpy", ...,
#       "main.py"), as that path, a newline, its length in decimal, a
#       newline, then its bytes.
# A board running a build also names the code files beside it (.py, .mpy:
# /boot.py, modules on its path) that the digest does not cover: "others".
import hashlib
import secrets
import struct
from pathlib import Path

from ..errors import InputError

UF2_MAGIC = (0x0A324655, 0x9E5D5157)
UF2_END = 0x0AB16F30
UF2_NOT_MAIN_FLASH = 0x00000001
FLASH_START = 0x10000000
SEED_BYTES = 16  # 32 hex characters


def new_seed():
    return secrets.token_hex(SEED_BYTES)


def uf2_image(path):
    # The bytes a UF2 file programs, from the start of flash.
    data = Path(path).read_bytes()
    pages = {}
    for offset in range(0, len(data) - 511, 512):
        block = data[offset:offset + 512]
        start0, start1, flags, address, size = struct.unpack_from("<5I", block)
        if (start0, start1) != UF2_MAGIC or struct.unpack_from("<I", block, 508)[0] != UF2_END:
            raise InputError("%s: block %d is not a UF2 block" % (path, offset // 512))
        if not flags & UF2_NOT_MAIN_FLASH:
            pages[address] = block[32:32 + size]
    if not pages or len(data) % 512:
        raise InputError("%s: not a UF2 file" % path)
    image, at = bytearray(), FLASH_START
    for address in sorted(pages):
        if address != at:
            raise InputError("%s: its pages are not one run from 0x%08x (0x%08x)"
                             % (path, FLASH_START, address))
        image += pages[address]
        at += len(pages[address])
    return bytes(image)


def build_files(folder):
    folder = Path(folder)
    files = sorted((path.relative_to(folder).as_posix(), path)
                   for path in folder.rglob("*") if path.is_file())
    if not any(name == "main.py" for name, _ in files):
        raise InputError("%s: no main.py there: not a board's build (make build)" % folder)
    return files


def build_stream(folder):
    for name, path in build_files(folder):
        data = path.read_bytes()
        yield b"%s\n%d\n" % (name.encode(), len(data))
        yield data


def expected(seed, image=None, build=None):
    # (kind, length, hex digest) the board should answer for this seed.
    digest = hashlib.sha256(bytes.fromhex(seed))
    if image is not None:
        program, kind = [uf2_image(image)], "image"
    else:
        program, kind = build_stream(build), "files"
    length = 0
    for piece in program:
        digest.update(piece)
        length += len(piece)
    return kind, length, digest.hexdigest()


def verdict(reply, seed, image=None, build=None):
    # {"match": bool, ...} for a board's reply to the seed.
    kind, length, digest = expected(seed, image, build)
    found = {"seed": seed, "expected": digest, "expected_program": kind,
             "expected_bytes": length, "answered": reply.get("digest"),
             "program": reply.get("program"), "bytes": reply.get("bytes"),
             "others": reply.get("others")}
    found["match"] = (reply.get("ok") is True and reply.get("seed") == seed
                      and reply.get("digest") == digest)
    return found
