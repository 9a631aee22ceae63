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


class ProgramCheck:
    # program: the board's (program.py), () -> (kind, pieces[, others]).
    def __init__(self, program):
        self.program = program
        self.kind = None
        self.digest = None
        self.verdict = None  # ACCEPTED, NOT_ACCEPTED, CHANGED or UNREADABLE once run
        self.error = None

    def run(self, accepted):
        # Hashes the program and judges it against the accepted digest
        # (None: none yet); gives the fault's event, or None.
        try:
            self.kind, self.digest = program_digest(self.program)
        # A program of files that are not there, or (after a collection) no
        # memory to read it: a fault with its reason, never a stopped controller.
        except (OSError, MemoryError) as error:
            self.verdict, self.error = UNREADABLE, str(error)
            return {"ev": "fault", "reason": "program: it cannot be read (%s): no play until "
                    "it can" % error, "program": None, "accepted": accepted}
        self.judge(accepted)
        if self.verdict != CHANGED:
            return None
        return {"ev": "fault", "reason": "program: this is not the program accepted in "
                "service mode: no play until a technician accepts it with the key held "
                "(accept_program)", "program": self.digest, "accepted": accepted}

    def judge(self, accepted):
        if accepted is None:
            self.verdict = NOT_ACCEPTED
        else:
            self.verdict = ACCEPTED if accepted == self.digest else CHANGED

    def status(self, accepted):
        return {"check": self.verdict, "kind": self.kind, "digest": self.digest,
                "accepted": accepted}
