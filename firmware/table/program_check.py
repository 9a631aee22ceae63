# The program check at every start (docs/threat-model.md, "The program at
# start"): the board hashes the program it runs, the bytes `authenticate`
# covers (program.py: the image in a Pico's flash, else the build's
# files) with no seed before them, and compares the SHA-256 with the digest a
# technician accepted in service mode, which the store keeps (Store.program).
# A different program, or one that cannot be read, is a fault: no play until
# a technician accepts the program with the key held, in a signed `program`
# record naming the digest before and the new one. A board with none
# accepted yet (one upgraded to this firmware) plays on, and `status` says
# "not_accepted" until a technician accepts it.
import binascii
import gc
import hashlib

from .clock import ticks_diff

ACCEPTED = "accepted"
NOT_ACCEPTED = "not_accepted"
CHANGED = "changed"
UNREADABLE = "unreadable"


def program_digest(program):
    # (kind, hex SHA-256) of the program's bytes, read whole: at start no table runs yet.
    # Collected first: the store's boot leaves its garbage, and on a WROOM's
    # heap the read's 2 KB piece was not found among it.
    gc.collect()
    found = program()
    sha = hashlib.sha256()
    for piece in found[1]:
        sha.update(piece)
    return found[0], binascii.hexlify(sha.digest()).decode()


def check(program, accepted, ticks_ms=None):
    # ((kind, digest, verdict), the fault's event or None, the check's
    # milliseconds by ticks_ms, the board's clock, or None without one): the
    # program read by program (the board's reader, program.py) and hashed,
    # judged against the accepted digest (None: none yet). The controller
    # keeps the three and the time (`status` shows it: what the check adds to
    # a start, measured where it runs) and lets this module go.
    if ticks_ms is None:
        return _judged(program, accepted) + (None,)
    began = ticks_ms()
    found, event = _judged(program, accepted)
    return found, event, ticks_diff(ticks_ms(), began)


def _judged(program, accepted):
    try:
        kind, digest = program_digest(program)
    # A program of files that are not there, or (after a collection) no
    # memory to read it: a fault with its reason, never a stopped controller.
    except (OSError, MemoryError) as error:
        return (None, None, UNREADABLE), {
            "ev": "fault", "reason": "program: it cannot be read (%s): no play until it can"
            % error, "program": None, "accepted": accepted}
    judged = verdict(digest, accepted)
    if judged != CHANGED:
        return (kind, digest, judged), None
    return (kind, digest, judged), {
        "ev": "fault", "reason": "program: this is not the program accepted in service mode: "
        "no play until a technician accepts it with the key held (accept_program)",
        "program": digest, "accepted": accepted}


def verdict(digest, accepted):
    if accepted is None:
        return NOT_ACCEPTED
    return ACCEPTED if accepted == digest else CHANGED
