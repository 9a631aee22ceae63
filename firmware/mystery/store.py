# Non-volatile home of the meter and its event log, on the board's littlefs.
#
# A commit is: append the operation's log records to the newest log segment;
# if what changes rarely changed (the recent hits and the retained total at a
# validation, the table's settings at a change of one), write it to a
# temporary file renamed over the older of two copies (hits.a / hits.b),
# "the hits copy" below; then write the
# meter record, which names its log head and its hits copy, the same way
# over the older of meter.a / meter.b. littlefs makes an append or a rename
# all-or-nothing and the meter record is written last, so a power cut at any
# instant leaves either the old state or the new one. At boot the newest
# valid meter copy wins; log records past its log head, and a hits copy it
# does not name, belong to an operation that never committed. A store that
# cannot be read or does not add up raises StoreFault: it is never
# reformatted and no meter is ever reset by this module.
#
# Only committed records are ever read out (read_log stops at the head). A
# commit is refused before anything is written when the flash is under the
# room a commit needs (room_problem). A boot that drops records carrying the
# live cycle's hit value marks the meter exposed, on flash first.
#
# Wear: the meter record is rewritten every round. Kept under 512 bytes, it
# lives inline in littlefs's metadata on a Pico (whose filesystem is mounted
# with progsize=256), so a round costs a metadata commit rather than a fresh
# data block; the recent hits, about 1.3 KB when full, are rewritten only at
# a validation or a setting's change, with the settings and the retained
# total. Compact JSON for the same reason.
import binascii
import json
import os

from micropython import const

from . import chain
from .meter import RUNNING, Meter
from .record import from_record, to_record

_METER_MAGIC = "UTHMETER2"
# Written before the recent hits had copies of their own (the hits inside the
# record): still read, and rewritten in the current form at the next commit.
_METER_MAGICS = (_METER_MAGIC, "UTHMETER1")
_COPIES = ("meter.a", "meter.b")
_HITS_MAGIC = "UTHHITS2"
# Written before the settings and the retained total were kept with the
# hits (a bare list of hits): still read, as every setting at its default.
_HITS_MAGICS = (_HITS_MAGIC, "UTHHITS1")
_HITS_COPIES = ("hits.a", "hits.b")
# The temporary file a copy is written to and renamed from. Named to be the
# last entry of its folder (littlefs keeps a folder's entries in the order
# of their names): a power cut just after a rename over a file can leave
# littlefs counting the rename's move as pending, and it then takes the
# entry that has come to sit where the renamed file was for the one moved,
# and drops it. With the Pico's mount, where small files live in the
# folder's metadata, that dropped the side wagers' meters (wagers.a, after
# meter.tmp), and the store faulted; the last entry has none after it. (A
# temporary file in the log folder, segment.tmp, comes after its numbered
# segments.)
TMP_NAME = "~meter.tmp"
# The name an earlier firmware gave it: a store it left is cleared of it too.
_OLD_TMP = "meter.tmp"
# The side wagers' meters (wagers.py), written by a settlement only: a
# settlement changes no Mystery meter, so its commit is its log record, then
# a copy of these meters naming that record, written over the older of two
# copies (littlefs keeps a file's old content until its new one is whole).
# The copy is the settlement's commit record: at boot the log head is the
# newer of the meter record's and the newest copy's. A settlement so costs
# one small write beside its log record, not a meter record as well: wear.
_WAGERS_MAGIC = "UTHWAGERS1"
_WAGERS_COPIES = ("wagers.a", "wagers.b")
_COMPACT = (",", ":")
# The first event of each kind of operation: a round (its hits follow), a
# validation (its payment follows), a reset, a configuration, a setting, a
# settlement.
_OPERATION_STARTS = ("round", "validated", "reset", "config", "setting", "settled")
_LOG_DIR = "log"
# The free space a commit may need, in erase blocks. littlefs writes copy on
# write: a commit takes fresh blocks before it frees the old ones. Appending
# to a log segment copies the segment's last, partly written block to a
# fresh one and may spill into one more (one operation's records are well
# under a block); a new segment takes one block instead. The recent hits'
# temporary copy takes one, the meter record's one (none when it lives
# inline in metadata, as on a Pico). A directory's metadata pair that must
# move (worn, or split when full) takes up to two: 2 + 1 + 1 + 2.
_RESERVE_BLOCKS = const(6)
# What a commit is counted to add to the blocks in use, while the store
# keeps its own count of the room (room_problem): at most the room it needs
# while it runs, doubled for a margin. Measured on littlefs with both
# boards' mounts: 6 blocks at a new store's first commit (it makes the log
# folder and the first segment), at most 2 after.
_COMMIT_BLOCKS = const(2 * _RESERVE_BLOCKS)


# Said at every boot while a cycle's value is exposed (see Meter.redraw).
EXPOSED_WARNING = ("cycle %d's hit value was written to flash by an operation that did not "
                   "commit: no round until it is redrawn in service mode")


class StoreFault(Exception):
    pass


class LogTrimmed(Exception):
    # A log read stopped because the records from `next_seq` on were removed
    # under it, to keep the log bounded, while it ran.
    def __init__(self, next_seq):
        super().__init__(next_seq)
        self.next_seq = next_seq


def _reveals(record, meter):
    # Whether a record of an operation that never committed shows the live
    # cycle's hit value: a hit, or a configuration that closed the cycle
    # (both carry its salt), or a round whose meter passed the value (its
    # hit record follows, whole or not).
    if meter.phase != RUNNING:
        return False
    if record.get("salt") == meter._salt or record.get("hit_value") == meter._hit_value:
        return True
    return (record.get("ev") == "round" and type(record.get("meter")) is int
            and record["meter"] > meter._hit_value)


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _measure_room(statvfs, root):
    # [bytes free, bytes a block]
    stat = statvfs(root)
    block, available = stat[0], stat[4]  # f_bsize, f_bavail
    if available > stat[2]:
        # littlefs counts the blocks in use by walking the filesystem, an
        # estimate that can pass the total on a nearly full flash, and
        # MicroPython's unsigned subtraction then wraps: nothing is free.
        available = 0
    return [stat[1] * available, block]  # f_frsize


def _write_encoded(f, magic, seq, payload):
    # A copy's text, "MAGIC seq crc\nbody\n", made whole before the first
    # write and written in pieces: joined, it was a second string as long as
    # the body, and on the board a new string costs about 0.1 ms with the
    # firmware loaded. littlefs keeps a file's writes in its cache until the
    # file is closed, so the flash is written the same either way.
    body = json.dumps(payload, separators=_COMPACT)
    crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
    f.write("%s %d %08x\n" % (magic, seq, crc))
    f.write(body)
    f.write("\n")


def _decode(magics, text):
    # (seq, payload) or None when the copy is unreadable.
    try:
        header, body = text.split("\n", 1)
        magic, seq, crc = header.split(" ")
        body = body.rstrip("\n")
        if magic not in magics or (
                int(crc, 16) != binascii.crc32(body.encode()) & 0xFFFFFFFF):
            return None
        return int(seq), json.loads(body)
    except (ValueError, TypeError):
        return None


class Store:
    def __init__(self, root, segment_records=32, segments_kept=8,
                 reserve_blocks=_RESERVE_BLOCKS):
        self.root = root
        self.segment_records = segment_records
        self.segments_kept = segments_kept
        self.commit_seq = 0
        self.hits_seq = 0  # the hits copy the meter record names; 0: none yet
        # (hit count, retained, settings) when the hits copy was last
        # written: only a validation changes the list, and it counts the hit.
        self._rare_written = (0, 0, {})
        self.head_seq = 0
        self.head_hash = chain.GENESIS
        self.warnings = []
        self._tail_count = 0  # records in the newest segment
        # The log's segments, oldest first, once listed (None: list them).
        # Only the store writes its folder while it runs, so from then on the
        # list is kept as it adds and removes segments: listing the folder
        # took about 3 ms of every commit on a Pico.
        self._segment_names = None
        # The first record of the oldest segment kept when segments were last
        # removed: a log reading in an older segment lost it under its feet.
        self._trimmed_below = 0
        self.loaded = False  # a meter record read (or a new store's written)
        self.reserve_blocks = reserve_blocks
        self._room = None  # [bytes surely free, bytes a block]; None: measure (room_problem)
        # The side wagers' meters (wagers.WagerMeters); None until a round
        # is settled: the module stays out of the heap of a table never sent one.
        self.wagers = None
        self._wagers_copy = None  # [copy index, its seq, its log record] of the copy that counts
        # The store's own files' paths, made here once: a path joined anew
        # is a new string at every commit, and on the board a new string
        # costs about 0.1 ms with the firmware loaded. Made with the store, not at
        # their first use, so these few lasting strings lie together rather
        # than among a commit's passing ones.
        self._paths = {}
        for name in _COPIES + _HITS_COPIES + _WAGERS_COPIES + (TMP_NAME, _LOG_DIR):
            self._paths[name] = root + "/" + name

    def _path(self, *names):
        if len(names) == 1 and names[0] in self._paths:
            return self._paths[names[0]]
        return "/".join((self.root,) + names)

    # ---- the meter record ----

    def _read_copy(self, magics, name):
        try:
            with open(self._path(name)) as f:
                return _decode(magics, f.read())
        except (OSError, ValueError):  # ValueError: UnicodeError, bytes that are not text
            return None

    def _read_copies(self, magics, names, what):
        found = []
        for name in names:
            copy = self._read_copy(magics, name)
            if copy is not None:
                found.append(copy)
            elif _exists(self._path(name)):
                self.warnings.append("%s copy %s is unreadable" % (what, name))
        return found

    def _newest_copy(self):
        found = self._read_copies(_METER_MAGICS, _COPIES, "meter")
        if not found:
            return None
        return max(found, key=lambda copy: copy[0])

    def _replace(self, name, magic, seq, payload):
        # A whole copy at once: a temporary file renamed over the old one.
        tmp = self._path(TMP_NAME)
        with open(tmp, "w") as f:
            _write_encoded(f, magic, seq, payload)
        os.rename(tmp, self._path(name))

    def _write_state(self, meter, commit_seq, head_seq, head_hash, hits_seq):
        payload = {"meter": to_record(meter), "log_seq": head_seq, "log_hash": head_hash,
                   "hits_seq": hits_seq}
        self._replace(_COPIES[commit_seq % 2], _METER_MAGIC, commit_seq, payload)

    # ---- the recent hits ----

    def _write_hits(self, last_hits, kept_settings=None, retained=0):
        # Into the copy the meter record does not name; it counts once the
        # meter record naming it has landed.
        hits_seq = self.hits_seq + 1
        payload = {"hits": last_hits, "settings": kept_settings or {}, "retained": retained}
        self._replace(_HITS_COPIES[hits_seq % 2], _HITS_MAGIC, hits_seq, payload)
        return hits_seq

    def _rare_changed(self, meter):
        return self._rare_written != (meter.hits, meter.retained, meter.settings)

    def _any_hits_copy(self):
        return any(_exists(self._path(name)) for name in _HITS_COPIES)

    def _read_hits(self, hits_seq):
        # (recent hits, settings, retained) from the copy the record names.
        if hits_seq == 0:
            return [], {}, 0
        for seq, payload in self._read_copies(_HITS_MAGICS, _HITS_COPIES, "recent hits"):
            if seq == hits_seq:
                if type(payload) is list:  # UTHHITS1: the hits alone
                    return payload, {}, 0
                return payload["hits"], payload["settings"], payload["retained"]
        raise StoreFault("the recent hits the meter record names (copy %d) are unreadable"
                         % hits_seq)

    # ---- the side wagers' meters ----

    def _write_wagers(self, meters, log_seq, log_hash):
        # Over the copy that does not count; once whole, it counts.
        index, seq = (0, 0) if self._wagers_copy is None else (
            1 - self._wagers_copy[0], self._wagers_copy[1])
        payload = {"log_seq": log_seq, "log_hash": log_hash, "wagers": meters.to_record()}
        with open(self._path(_WAGERS_COPIES[index]), "w") as f:
            _write_encoded(f, _WAGERS_MAGIC, seq + 1, payload)
        return [index, seq + 1, log_seq, log_hash]

    def _read_wagers(self):
        # The newest readable copy counts; a settlement committed after the
        # meter record moves the log head to its record.
        best = None
        for index in range(2):
            copy = self._read_copy((_WAGERS_MAGIC,), _WAGERS_COPIES[index])
            if copy is not None and (best is None or copy[0] > best[1]):
                best = [index, copy[0], copy[1]]
        if best is None:
            return
        index, seq, payload = best
        try:
            log_seq, log_hash = payload["log_seq"], payload["log_hash"]
            from . import wagers

            self.wagers = wagers.from_record(payload["wagers"])
            if type(log_seq) is not int or not isinstance(log_hash, str):
                raise ValueError("no log record named")
        except (KeyError, TypeError, ValueError) as error:
            raise StoreFault("wager meters copy %s: %s"
                             % (_WAGERS_COPIES[index], error)) from None
        self._wagers_copy = [index, seq, log_seq, log_hash]
        if log_seq > self.head_seq:
            self.head_seq, self.head_hash = log_seq, log_hash

    def _check_wagers(self, settled):
        # settled: the last settlement record in the kept log, or None. The
        # copy that counts must be its, or a settlement's meters went missing.
        copy = self._wagers_copy
        if settled is None:
            if copy is not None and copy[2] > self.dropped():
                raise StoreFault("the wager meters name log record %d, which is no settlement"
                                 % copy[2])
            return
        if copy is None or copy[2] != settled["seq"] or copy[3] != settled["hash"]:
            raise StoreFault("the wager meters are not those of the last settlement (log "
                             "record %d)" % settled["seq"])

    # ---- the log ----

    def _segments(self):
        # Not to be changed by the caller: _append and _drop_uncommitted
        # keep it.
        if self._segment_names is None:
            try:
                names = os.listdir(self._path(_LOG_DIR))
            except OSError:
                names = []  # no log folder yet: the first append makes it
            self._segment_names = sorted(name for name in names if name.endswith(".log"))
        return self._segment_names

    def _records(self, name):
        # The records of one segment up to its first unreadable line, one at
        # a time: a whole segment is a large piece of a board's heap.
        try:
            with open(self._path(_LOG_DIR, name)) as f:
                for line in f:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        return
                    yield record
        except OSError:
            return

    def _truncate_segment(self, name, count):
        # The segment cut to its first `count` records, copied line by line
        # (they are the lines _records read) to a temporary file renamed
        # over it.
        tmp = self._path(_LOG_DIR, "segment.tmp")
        with open(self._path(_LOG_DIR, name)) as old, open(tmp, "w") as new:
            for line in old:
                if not count:
                    break
                new.write(line)
                count -= 1
        os.rename(tmp, self._path(_LOG_DIR, name))

    def _beyond_head(self, meter):
        # The records past the meter's log head: how many, how many
        # operations they start, the kind of the first (its first event), and
        # whether any reveals the live cycle's hit value. Record by record,
        # newest segment first, until one holds none past the head.
        count, operations, first, reveals = 0, 0, None, False
        for name in reversed(self._segments()):
            found = False
            for record in self._records(name):
                if record.get("seq", 0) <= self.head_seq:
                    continue
                if not found:
                    found, segment_first = True, record.get("ev")
                count += 1
                operations += record.get("ev") in _OPERATION_STARTS
                reveals = reveals or _reveals(record, meter)
            if not found:
                break
            first = segment_first
        return count, operations, first, reveals

    def _drop_uncommitted(self):
        # Records past the head were written by an operation cut off before
        # its meter record landed: that operation did not happen. A
        # segment's records are in order, so those kept come first.
        segments = self._segments()
        self._segment_names = None  # listed again once segments may have gone
        for name in reversed(segments):
            kept = total = 0
            for record in self._records(name):
                total += 1
                kept += record.get("seq", 0) <= self.head_seq
            if not kept:
                os.remove(self._path(_LOG_DIR, name))
                continue
            if kept != total:
                self._truncate_segment(name, kept)
            self._tail_count = kept
            return

    def _segment_holding(self, seq, segments):
        # The kept segment where record `seq` is, or the oldest if it was
        # dropped: the last whose name (its first record's number) is not
        # past seq.
        holding = segments[0] if segments else None
        for name in segments:
            if int(name[:-4]) <= seq:
                holding = name
        return holding

    def _segment_after(self, name):
        later = [other for other in self._segments() if other > name]
        return later[0] if later else None

    def _reads(self, since):
        # One item per log record read: the record if it is committed and
        # not before `since`, else None. The segments before the one that
        # holds `since` are skipped by name, never read. Segments are looked
        # up as the reading reaches them, so records committed meanwhile are
        # read too, up to the head at that moment. Of a segment removed
        # meanwhile (the log kept bounded) not another byte is read: littlefs
        # may already have reused its blocks; the reading goes on at the
        # oldest segment kept, which export_log checks follows on.
        if not self.loaded:
            return
        name = self._segment_holding(since, self._segments())
        while name is not None:
            start = int(name[:-4])
            for record in self._records(name):
                seq = record.get("seq", 0)
                if seq > self.head_seq:
                    return
                yield record if seq >= since else None
                if start < self._trimmed_below:
                    break
            name = self._segment_after(name)

    def read_log(self, since=0):
        # Committed records only: never one past the meter's log head (an
        # operation that did not commit, a round that hit among them), and
        # nothing at all before a meter record has been read.
        for record in self._reads(since):
            if record is not None:
                yield record

    def export_log(self, since):
        # read_log for a host's export, which runs a few records a turn
        # while the table commits: one item per record read (None for one
        # before `since`), so a caller can bound the reading, not only the
        # sending. A record that does not follow the one before ends the
        # export with LogTrimmed: it never goes out with a gap or a record
        # of another segment.
        expected = None
        for record in self._reads(since):
            if record is not None:
                seq = record.get("seq")
                if expected is not None and seq != expected:
                    raise LogTrimmed(expected)
                expected = seq + 1
            yield record

    def dropped(self):
        # Records removed to keep the log bounded: all before the oldest kept,
        # whose sequence number names its segment.
        segments = self._segments()
        if not segments:
            return self.head_seq
        return int(segments[0][:-4]) - 1

    def _check_log(self):
        # Record by record: the whole kept log would not fit a board's heap.
        last = settled = None
        for record in self.read_log():
            if record.get("ev") == "settled":
                settled = record
            if last is not None and record.get("seq") != last["seq"] + 1:
                raise StoreFault("event log: sequence breaks at %r" % (record.get("seq"),))
            ok, message = chain.verify([record], None if last is None else last["hash"])
            if not ok:
                raise StoreFault("event log: " + message)
            last = record
        if self.head_seq and (last is None or last["seq"] != self.head_seq
                              or last["hash"] != self.head_hash):
            raise StoreFault("event log does not reach the meter's last record")
        self._check_wagers(settled)

    def _append(self, records):
        segments = self._segments()
        # A segment in the folder means the folder is there: looked for only
        # when there is none (a new store), not at every commit.
        if not segments and not _exists(self._path(_LOG_DIR)):
            os.mkdir(self._path(_LOG_DIR))
        if not segments or self._tail_count + len(records) > self.segment_records:
            segments = segments + ["%010d.log" % records[0]["seq"]]
            self._tail_count = 0
        # Unknown until the flash holds what the list will say: an error
        # half way leaves the folder to be listed again.
        self._segment_names = None
        with open(self._path(_LOG_DIR, segments[-1]), "a") as f:
            for record in records:
                # Its text made whole before it is written; its line end
                # apart, not joined into a second string.
                f.write(json.dumps(record, separators=_COMPACT))
                f.write("\n")
        self._tail_count += len(records)
        for name in segments[:-self.segments_kept]:
            os.remove(self._path(_LOG_DIR, name))
            self._trimmed_below = int(segments[-self.segments_kept][:-4])
        self._segment_names = segments[-self.segments_kept:]

    # ---- room on the flash ----
    #
    # littlefs counts the blocks in use by walking the whole filesystem
    # (10-20 ms on a Pico, more as the log grows), so the free space is
    # measured once and then kept as a lower bound: each commit takes off,
    # before it writes, more than it can add to the blocks in use
    # (_COMMIT_BLOCKS: what a commit leaves in use is what it held at its
    # end, no more than its reserve at its peak), and what a removed log
    # segment frees is never added back. That holds while the store is the
    # only writer, as it is while the controller runs: a technician's copy
    # with mpremote stops the controller, and a restart makes a new store,
    # which measures anew, as boot() does. A bound under the reserve is
    # measured again before it refuses, so a refusal always rests on a
    # measurement, and space freed since counts at once.

    def room_problem(self):
        # Why the next commit might not fit, or None. Checked before an
        # operation touches the meter, so a full flash refuses it with
        # nothing written rather than failing halfway through a commit.
        if self._room is None or self._room[0] < self.reserve_blocks * self._room[1]:
            self._measure_room()
        if self._room is None:  # a port without statvfs: the commit's own errors remain
            return None
        free, need = self._room[0], self.reserve_blocks * self._room[1]
        if free >= need:
            return None
        return "flash full: %d bytes free, a commit needs %d" % (free, need)

    def _measure_room(self):
        statvfs = getattr(os, "statvfs", None)
        self._room = None if statvfs is None else _measure_room(statvfs, self.root)

    # ---- boot and commit ----

    def boot(self):
        # The meter as last committed; a fresh store gives an unconfigured one.
        # The room is measured anew once the boot's own writes are done (the
        # flash may have changed while no store ran), so the first LOCK after
        # a power-on does not wait for littlefs to walk the filesystem.
        self._room = None
        meter = self._boot()
        self._measure_room()
        return meter

    def _boot(self):
        for name in (TMP_NAME, _OLD_TMP):
            if _exists(self._path(name)):
                os.remove(self._path(name))
        newest = self._newest_copy()
        meter_copy_unreadable = bool(self.warnings)
        if newest is None:
            if meter_copy_unreadable or self._segments() or self._any_hits_copy():
                raise StoreFault("no readable meter record (%s)" % (
                    "; ".join(self.warnings) or "log or recent hits without a meter"))
            # A new store: its first meter record lands before any log record
            # can, so a power cut never leaves a log without a meter.
            meter = Meter()
            self._write_state(meter, 0, 0, chain.GENESIS, 0)
            self.loaded = True
            return meter
        self.commit_seq, payload = newest
        try:
            if "hits_seq" in payload:
                hits_seq = payload["hits_seq"]
                last_hits, kept_settings, retained = self._read_hits(hits_seq)
            else:  # UTHMETER1: the hits in the record, no copy of their own yet
                hits_seq, last_hits = 0, payload["meter"]["last_hits"]
                kept_settings, retained = {}, 0
            meter = from_record(payload["meter"], last_hits, kept_settings, retained)
            self.head_seq, self.head_hash = payload["log_seq"], payload["log_hash"]
        except (ValueError, KeyError, TypeError) as error:
            raise StoreFault(str(error)) from None
        self._read_wagers()  # a settlement since the meter record moves the head
        self.hits_seq = hits_seq
        self.loaded = True
        # None: the next commit writes the hits to a copy of their own.
        self._rare_written = (meter.hits, meter.retained, dict(meter.settings)) \
            if "hits_seq" in payload else None
        if self._judge_uncommitted(meter, meter_copy_unreadable) and not meter.exposed:
            # Kept on flash before the records that reveal the value go, so
            # a power cut in this boot cannot forget it.
            meter.exposed = True
            self._write_state(meter, self.commit_seq + 1, self.head_seq, self.head_hash,
                              self.hits_seq)
            self.commit_seq += 1
        if meter.exposed:
            self.warnings.append(EXPOSED_WARNING % meter.cycle)
        self._drop_uncommitted()
        self._check_log()
        return meter

    def _judge_uncommitted(self, meter, meter_copy_unreadable):
        # Records past the meter's head: a power cut leaves one operation's,
        # written before its meter record could land. That operation did not
        # happen; it is reported and its records go. More than one means the
        # meter record itself went back (its flash corrupted, or littlefs
        # reading an older commit of it): a fault, never a silent rollback.
        # The reports name the operation's kind and where it starts, never its
        # other events or how many records it wrote. Gives whether the dropped
        # records reveal the live cycle's hit value: then the cycle is marked
        # exposed, reported on its own, and played no more until a redraw.
        count, operations, first, reveals = self._beyond_head(meter)
        if not count:
            return False
        if meter_copy_unreadable:
            # The unreadable copy was the newer: falling back to the older
            # would drop an operation, maybe a hit.
            raise StoreFault("the newest meter copy is unreadable (%s) and the log holds "
                             "records past the older one" % "; ".join(self.warnings))
        if operations > 1:
            raise StoreFault("the log holds %d operations past the meter record, from log "
                             "record %d: the meter went back, which no power cut does"
                             % (operations, self.head_seq + 1))
        self.warnings.append("an operation whose meter record never landed (a power cut, or a "
                             "bad record) did not happen: the %s from log record %d is dropped"
                             % (first, self.head_seq + 1))
        return reveals

    def commit(self, meter, events, wager_meters=None):
        # One atomic step for one operation: its log records, then its meter
        # record, or for a settlement (wager_meters given) the side wagers'
        # meters, which name its record.
        if self._room is not None:  # before anything is written (room_problem)
            self._room[0] -= _COMMIT_BLOCKS * self._room[1]
        seq, prev = self.head_seq, self.head_hash
        records = []
        for event in events:
            seq += 1
            record = chain.link(event, seq, prev)
            prev = record["hash"]
            records.append(record)
        if records:
            self._append(records)
        if wager_meters is not None:
            # A settlement: the copy of the wager meters is its commit record.
            copy = self._write_wagers(wager_meters, seq, prev)
            self.head_seq, self.head_hash = seq, prev
            self.wagers, self._wagers_copy = wager_meters, copy
            return records
        hits_seq = self.hits_seq
        if self._rare_changed(meter):
            hits_seq = self._write_hits(meter.last_hits, meter.settings, meter.retained)
        self._write_state(meter, self.commit_seq + 1, seq, prev, hits_seq)
        self.commit_seq += 1
        self.head_seq, self.head_hash = seq, prev
        self.hits_seq = hits_seq
        self._rare_written = (meter.hits, meter.retained, dict(meter.settings))
        return records
