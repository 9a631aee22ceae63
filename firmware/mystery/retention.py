# No record leaves the log before it is collected: the "collected up to
# record N" mark, which only a confirmation the board trusts moves (the
# floor's, authenticated with the record key, or one given with the key
# switch held: docs/host-link.md, "Collected"), and the shares of the log's
# capacity at which the board warns, refuses LOCK, and refuses all but what
# a pending hit still needs. The mark is a record of its own kept as two
# copies (copies.py), each written whole and renamed into place, so a power
# cut leaves the old mark or the new: never more collected than was.
# The figures and their reasons: docs/mystery.md, "Collected".
from micropython import const

from .copies import COPY_INDEX, COPY_PAYLOAD, COPY_SEQ, Pair

# The most records one commit writes: a validation's validated, paid and
# retained, and the warning below beside them.
OP_RECORDS = const(4)
# What a hit still needs once the log is near full, in records: its
# validation (3), the reset (1) and a warning (1). Every operation but a
# validation and a reset is refused when it would leave less than this
# beside its own records; a fault of the display is then an event alone.
PAYABLE = const(5)
# What a LOCK needs left: its round, hit and a warning (3), then room for
# the round's side wagers settled as any operation. LOCK is refused first.
LOCK_NEEDS = const(3 + OP_RECORDS + PAYABLE)
# What every other operation must leave: its own records, then a hit's needs.
OP_NEEDS = const(OP_RECORDS + PAYABLE)
# The share of the capacity, in percent, past which the board warns.
WARN_PERCENT = const(75)


def capacity(per_segment, kept):
    # The uncollected records the log surely keeps: the oldest of `kept`
    # segments goes when a new one is begun, and a segment holds at least
    # per_segment - OP_RECORDS + 1 records (an operation's stay together).
    return (kept - 1) * (per_segment - OP_RECORDS + 1)


def warn_at(cap):
    return cap * WARN_PERCENT // 100


class Mark:
    def __init__(self, root, tmp):
        self._copies = Pair(root, ("collected.a", "collected.b"), ("UTHCOLLECTED1",),
                            "collected mark")
        self._tmp = tmp
        self.seq = 0  # every record up to this one is collected
        self.lost = 0  # uncollected records dropped before the mark passed them
        self._copy = None  # [index, seq] of the copy that counts; None: none yet

    def boot(self, head_seq, warnings):
        # The newest readable copy; none: nothing collected yet. A mark past
        # the log's head (a meter that went back) counts up to the head only.
        newest = self._copies.newest(warnings)
        if newest is None:
            return
        payload = newest[COPY_PAYLOAD]
        seq, lost = payload.get("seq"), payload.get("lost")
        if type(seq) is not int or type(lost) is not int or seq < 0 or lost < 0:
            warnings.append("collected mark copy collected.%s is not a mark: nothing counts "
                            "as collected" % "ab"[newest[COPY_INDEX]])
            return
        self._copy = [newest[COPY_INDEX], newest[COPY_SEQ]]
        self.seq, self.lost = min(seq, head_seq), lost

    def lost_now(self, removed):
        # removed: the records the log no longer keeps (the oldest kept is
        # the next); those the mark had not passed were lost.
        return self.lost + max(0, removed - self.seq)

    def advance(self, seq, removed):
        # Up to record `seq`, on flash before it counts: over the copy that
        # does not count, renamed into place.
        lost = self.lost_now(min(removed, seq)) if removed > self.seq else self.lost
        index, number = (0, 1) if self._copy is None else (1 - self._copy[0], self._copy[1] + 1)
        self._copies.replace(index, number, {"seq": seq, "lost": lost}, self._tmp)
        self._copy = [index, number]
        self.seq, self.lost = seq, lost
