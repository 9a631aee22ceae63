# The event log on flash: records as lines of compact JSON in numbered
# segments (log/NNNNNNNNNN.log, named by their first record's number), the
# oldest removed to keep the log bounded, and the free space a commit may
# take. Only the store writes its folder while it runs, so the segments are
# listed once and then kept as they are added and removed.
import json
import os

from micropython import const

from .copies import exists

# The free space a commit may need, in erase blocks (docs/mystery.md, "A
# full flash", derives it).
RESERVE_BLOCKS = const(6)
# What a commit is counted to take off the room counted on, at most: twice
# the reserve (docs/mystery.md, "A full flash").
_COMMIT_BLOCKS = const(2 * RESERVE_BLOCKS)
_COMPACT = (",", ":")


def _first_seq(name):
    return int(name[:-4])


class Room:
    # The bytes surely free, and the bytes of an erase block.
    def __init__(self, free, block):
        self.free = free
        self.block = block


def _measured(statvfs, root):
    stat = statvfs(root)
    block, available = stat[0], stat[4]  # f_bsize, f_bavail
    if available > stat[2]:
        # littlefs's count of the blocks in use is an estimate that can pass
        # the total on a nearly full flash, and the unsigned subtraction
        # then wraps: nothing is free.
        available = 0
    return Room(stat[1] * available, block)  # f_frsize


class Log:
    def __init__(self, root):
        self.root = root
        self.dir = root + "/log"
        self._tail_count = 0  # records in the newest segment
        self._names = None  # the segments, oldest first; None: list the folder
        # The first record of the oldest segment kept when segments were
        # last removed: a reading in an older segment lost it under its feet.
        self._trimmed_below = 0
        self.room = None  # a Room; None: measure it

    def _path(self, name):
        return self.dir + "/" + name

    def segments(self):
        # Not to be changed by the caller.
        if self._names is None:
            try:
                names = os.listdir(self.dir)
            except OSError:
                names = []  # no log folder yet: the first append makes it
            self._names = sorted(name for name in names if name.endswith(".log"))
        return self._names

    def _records(self, name):
        # One segment's records up to its first unreadable line, one at a
        # time: a whole segment is a large piece of a board's heap.
        try:
            with open(self._path(name)) as f:
                for line in f:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        return
                    yield record
        except OSError:
            return

    def append(self, records, per_segment, kept):
        # A new segment when the newest would pass per_segment records; the
        # oldest beyond `kept` segments removed.
        segments = self.segments()
        # A segment there means the folder is: looked for only when there is none.
        if not segments and not exists(self.dir):
            os.mkdir(self.dir)
        if not segments or self._tail_count + len(records) > per_segment:
            segments = segments + ["%010d.log" % records[0]["seq"]]
            self._tail_count = 0
        # Unknown until the flash holds what the list will say: an error
        # half way leaves the folder to be listed again.
        self._names = None
        with open(self._path(segments[-1]), "a") as f:
            for record in records:
                # Its line end apart, not joined into a second string.
                f.write(json.dumps(record, separators=_COMPACT))
                f.write("\n")
        self._tail_count += len(records)
        for name in segments[:-kept]:
            os.remove(self._path(name))
            self._trimmed_below = _first_seq(segments[-kept])
        self._names = segments[-kept:]

    def past(self, seq):
        # (segment, record) for each record after record `seq`, newest
        # segment first, until a segment holds none after it.
        for name in reversed(self.segments()):
            found = False
            for record in self._records(name):
                if record.get("seq", 0) > seq:
                    found = True
                    yield name, record
            if not found:
                return

    def drop_past(self, seq):
        # Every record after record `seq` removed. A segment's records are
        # in order, so those kept come first.
        segments = self.segments()
        self._names = None  # listed again once segments may have gone
        for name in reversed(segments):
            kept = total = 0
            for record in self._records(name):
                total += 1
                kept += record.get("seq", 0) <= seq
            if not kept:
                os.remove(self._path(name))
                continue
            if kept != total:
                self._truncate(name, kept)
            self._tail_count = kept
            return

    def _truncate(self, name, count):
        # Its first `count` lines copied to a temporary file renamed over it.
        tmp = self._path("segment.tmp")
        with open(self._path(name)) as old, open(tmp, "w") as new:
            for line in old:
                if not count:
                    break
                new.write(line)
                count -= 1
        os.rename(tmp, self._path(name))

    def _holding(self, seq, segments):
        # The kept segment where record `seq` is, or the oldest if it was
        # dropped: the last whose first record is not past seq.
        holding = segments[0] if segments else None
        for name in segments:
            if _first_seq(name) <= seq:
                holding = name
        return holding

    def _after(self, name):
        later = [other for other in self.segments() if other > name]
        return later[0] if later else None

    def reads(self, since, head):
        # One item per record read: the record if it is committed and not
        # before `since`, else None. Committed: up to head(), the store's log
        # head, asked anew at each record, so records committed meanwhile
        # are read too.
        # The segments before the one holding `since` are skipped by name.
        # Of a segment removed meanwhile not another byte is read (littlefs
        # may have reused its blocks): the reading goes on at the oldest
        # segment kept, and the caller checks that it follows on.
        name = self._holding(since, self.segments())
        while name is not None:
            start = _first_seq(name)
            for record in self._records(name):
                seq = record.get("seq", 0)
                if seq > head():
                    return
                yield record if seq >= since else None
                if start < self._trimmed_below:
                    break
            name = self._after(name)

    def dropped(self, head_seq):
        # How many records were removed: all before the oldest kept, whose
        # number names its segment.
        segments = self.segments()
        if not segments:
            return head_seq
        return _first_seq(segments[0]) - 1

    # ---- the room on the flash ----
    #
    # littlefs counts the blocks in use by walking the whole filesystem, so
    # the room is measured once and then counted down: each commit takes
    # off, before it writes, more than it can add to the blocks in use, and
    # what a removed segment frees is never added back. That holds while the
    # store is the only writer, as it is while the controller runs
    # (docs/mystery.md, "A full flash").

    def measure_room(self):
        statvfs = getattr(os, "statvfs", None)
        self.room = None if statvfs is None else _measured(statvfs, self.root)

    def room_problem(self, reserve_blocks):
        # Why the next commit might not fit, or None. A count under the
        # reserve is measured again first, so a refusal always rests on a
        # measurement and space freed since counts at once.
        room = self.room
        if room is None or room.free < reserve_blocks * room.block:
            self.measure_room()
            room = self.room
        if room is None:  # a port without statvfs: the commit's own errors remain
            return None
        need = reserve_blocks * room.block
        if room.free >= need:
            return None
        return "flash full: %d bytes free, a commit needs %d" % (room.free, need)

    def prepare_room(self, reserve_blocks, commits):
        # At a quiet moment, off any operation's path: measured again now
        # if `commits` more commits could bring the count under the reserve,
        # so that the next operations' checks find it counted instead of
        # walking the filesystem inside their own time (LOCK's: docs/
        # benchmarks.md, "LOCK with the record key"). Only ever an extra
        # measurement: the count stays as sound as room_problem's.
        room = self.room
        if room is None or room.free < (reserve_blocks + commits * _COMMIT_BLOCKS) * room.block:
            self.measure_room()

    def count_commit(self):
        # Before a commit writes anything.
        if self.room is not None:
            self.room.free -= _COMMIT_BLOCKS * self.room.block
