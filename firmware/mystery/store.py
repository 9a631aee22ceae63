# Non-volatile home of the meter and its event log, on the board's littlefs.
#
# A commit is: append the operation's log records to the newest log segment,
# then write the meter record to a temporary file and rename it over the
# older of two copies (meter.a / meter.b). littlefs makes an append or a
# rename all-or-nothing, so a power cut at any instant leaves either the old
# state or the new one. At boot the newest valid copy wins; log records past
# the meter's log head belong to an operation that never committed and are
# dropped. A store that cannot be read or does not add up raises StoreFault:
# it is never reformatted and no meter is ever reset by this module.
import binascii
import json
import os

from . import chain
from .meter import Meter
from .record import from_record, to_record

_MAGIC = "UTHMETER1"
_COPIES = ("meter.a", "meter.b")
_TMP = "meter.tmp"
_LOG_DIR = "log"


class StoreFault(Exception):
    pass


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _encode(commit_seq, payload):
    body = json.dumps(payload)
    crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
    return "%s %d %08x\n%s\n" % (_MAGIC, commit_seq, crc, body)


def _decode(text):
    # (commit_seq, payload) or None when the copy is unreadable.
    try:
        header, body = text.split("\n", 1)
        magic, seq, crc = header.split(" ")
        body = body.rstrip("\n")
        if magic != _MAGIC or int(crc, 16) != binascii.crc32(body.encode()) & 0xFFFFFFFF:
            return None
        return int(seq), json.loads(body)
    except (ValueError, TypeError):
        return None


class Store:
    def __init__(self, root, segment_records=32, segments_kept=8):
        self.root = root
        self.segment_records = segment_records
        self.segments_kept = segments_kept
        self.commit_seq = 0
        self.head_seq = 0
        self.head_hash = chain.GENESIS
        self.warnings = []
        self._tail_count = 0  # records in the newest segment

    def _path(self, *names):
        return "/".join((self.root,) + names)

    # ---- the meter record ----

    def _read_copy(self, name):
        try:
            with open(self._path(name)) as f:
                return _decode(f.read())
        except (OSError, ValueError):  # ValueError: UnicodeError, bytes that are not text
            return None

    def _newest_copy(self):
        found = []
        for name in _COPIES:
            copy = self._read_copy(name)
            if copy is not None:
                found.append(copy)
            elif _exists(self._path(name)):
                self.warnings.append("meter copy %s is unreadable" % name)
        if not found:
            return None
        return max(found, key=lambda copy: copy[0])

    def _write_state(self, meter, commit_seq, head_seq, head_hash):
        payload = {"meter": to_record(meter), "log_seq": head_seq, "log_hash": head_hash}
        tmp = self._path(_TMP)
        with open(tmp, "w") as f:
            f.write(_encode(commit_seq, payload))
        os.rename(tmp, self._path(_COPIES[commit_seq % 2]))

    # ---- the log ----

    def _segments(self):
        try:
            names = os.listdir(self._path(_LOG_DIR))
        except OSError:
            return []
        return sorted(name for name in names if name.endswith(".log"))

    def _read_segment(self, name):
        # The records of one segment up to its first unreadable line.
        records = []
        try:
            with open(self._path(_LOG_DIR, name)) as f:
                for line in f:
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        break
        except OSError:
            pass
        return records

    def _rewrite_segment(self, name, records):
        tmp = self._path(_LOG_DIR, "segment.tmp")
        with open(tmp, "w") as f:
            for record in records:
                f.write(json.dumps(record) + "\n")
        os.rename(tmp, self._path(_LOG_DIR, name))

    def _log_beyond_head(self):
        for name in reversed(self._segments()):
            for record in self._read_segment(name):
                if record.get("seq", 0) > self.head_seq:
                    return True
            return False
        return False

    def _drop_uncommitted(self):
        # Records past the head were written by an operation cut off before
        # its meter record landed: that operation did not happen.
        for name in reversed(self._segments()):
            records = self._read_segment(name)
            kept = [r for r in records if r.get("seq", 0) <= self.head_seq]
            if not kept:
                os.remove(self._path(_LOG_DIR, name))
                continue
            if len(kept) != len(records):
                self._rewrite_segment(name, kept)
            self._tail_count = len(kept)
            return

    def read_log(self, since=0):
        for name in self._segments():
            for record in self._read_segment(name):
                if record.get("seq", 0) >= since:
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
        last = None
        for record in self.read_log():
            if last is not None and record.get("seq") != last["seq"] + 1:
                raise StoreFault("event log: sequence breaks at %r" % (record.get("seq"),))
            ok, message = chain.verify([record], None if last is None else last["hash"])
            if not ok:
                raise StoreFault("event log: " + message)
            last = record
        if self.head_seq and (last is None or last["seq"] != self.head_seq
                              or last["hash"] != self.head_hash):
            raise StoreFault("event log does not reach the meter's last record")

    def _append(self, records):
        if not _exists(self._path(_LOG_DIR)):
            os.mkdir(self._path(_LOG_DIR))
        segments = self._segments()
        if not segments or self._tail_count + len(records) > self.segment_records:
            segments.append("%010d.log" % records[0]["seq"])
            self._tail_count = 0
        with open(self._path(_LOG_DIR, segments[-1]), "a") as f:
            for record in records:
                f.write(json.dumps(record) + "\n")
        self._tail_count += len(records)
        for name in segments[:-self.segments_kept]:
            os.remove(self._path(_LOG_DIR, name))

    # ---- boot and commit ----

    def boot(self):
        # The meter as last committed; a fresh store gives an unconfigured one.
        if _exists(self._path(_TMP)):
            os.remove(self._path(_TMP))
        newest = self._newest_copy()
        if newest is None:
            if self.warnings or self._segments():
                raise StoreFault("no readable meter record (%s)"
                                 % ("; ".join(self.warnings) or "log without meter"))
            # A new store: its first meter record lands before any log record
            # can, so a power cut never leaves a log without a meter.
            meter = Meter()
            self._write_state(meter, 0, 0, chain.GENESIS)
            return meter
        self.commit_seq, payload = newest
        try:
            meter = from_record(payload["meter"])
            self.head_seq, self.head_hash = payload["log_seq"], payload["log_hash"]
        except (ValueError, KeyError, TypeError) as error:
            raise StoreFault(str(error)) from None
        if self.warnings and self._log_beyond_head():
            # The unreadable copy was the newer: its operation's records are in
            # the log. Falling back would drop an operation, maybe a hit.
            raise StoreFault("the newest meter copy is unreadable (%s) and the log holds "
                             "records past the older one" % "; ".join(self.warnings))
        self._drop_uncommitted()
        self._check_log()
        return meter

    def commit(self, meter, events):
        # One atomic step for one operation: its log records, then its meter.
        seq, prev = self.head_seq, self.head_hash
        records = []
        for event in events:
            seq += 1
            record = chain.link(event, seq, prev)
            prev = record["hash"]
            records.append(record)
        if records:
            self._append(records)
        self._write_state(meter, self.commit_seq + 1, seq, prev)
        self.commit_seq += 1
        self.head_seq, self.head_hash = seq, prev
        return records
