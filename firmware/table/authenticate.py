# The host link's `authenticate` command: SHA-256 of the host's seed followed
# by the program this board runs (docs/host-link.md, "Program authentication").
# The seed is the host's, fresh each time, so an answer recorded for another
# seed does not serve. The program is read a piece at a time, one piece a
# turn of the link's loop, so the table's ticks go on meanwhile:
#   an image: its bytes in flash as programmed (flash_image.py gives its extent
#             from the image itself), read in place through a memoryview;
#   files:    the build's files as `make build` lays them out, sorted by name
#             ("lib/board.mpy", "lib/mystery/bonus.mpy", ..., "main.py"), each
#             as its name, a newline, its length in decimal, a newline, then
#             its bytes; the reply also names the code files beside the
#             build (code_outside), which the digest does not cover.
# The program's pieces are program.py's; this module is loaded only when a
# host asks, so its code is not in the heap through play.
import binascii
import hashlib

from micropython import const

from mystery.refusal import Refused

_SEED_MIN = const(8)  # hex characters
_SEED_MAX = const(64)


def seed_bytes(command):
    seed = command.get("seed")
    if not isinstance(seed, str) or not _SEED_MIN <= len(seed) <= _SEED_MAX \
            or len(seed) % 2:
        raise Refused("authenticate needs \"seed\": %d to %d hex characters, an even "
                         "number" % (_SEED_MIN, _SEED_MAX))
    try:
        return binascii.unhexlify(seed)
    except ValueError:
        raise Refused("seed: hex characters only (0-9, a-f)") from None


class Authentication:
    # One authenticate command under way: step() hashes one piece, and gives
    # the reply once the program is read.
    def __init__(self, command, program):
        self.command = command
        self.digest = hashlib.sha256(seed_bytes(command))
        try:
            found = program()
        except OSError as error:  # a program of files that are not there
            raise Refused("authenticate: the program cannot be read: %s" % error) from None
        self.kind, self.pieces = found[0], found[1]
        self.others = found[2] if len(found) > 2 else None
        self.length = 0

    def step(self):
        try:
            for piece in self.pieces:
                self.digest.update(piece)
                self.length += len(piece)
                return None
        except OSError as error:  # a file that fails mid-read: no digest, and play goes on
            return {"ok": False, "error": "authenticate: the program cannot be read: %s"
                    % error}
        reply = {"ok": True, "reply": "authenticate", "seed": self.command["seed"],
                 "program": self.kind, "bytes": self.length,
                 "digest": binascii.hexlify(self.digest.digest()).decode()}
        if self.others is not None:
            reply["others"] = self.others
        return reply
