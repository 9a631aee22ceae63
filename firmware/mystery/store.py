# The meter and its event log on the board's littlefs: boot reads the meter
# as last committed, commit makes one operation durable. A commit appends
# the operation's log records, writes the hits copy if what it holds
# changed, and writes the meter record last; a settlement's last write is
# the side wagers' copy instead. So a power cut leaves the operation whole
# or absent. A store that cannot be read or does not add up raises
# StoreFault: it is never reformatted and no meter is reset. Once the board
# has a record key (keys.py), every record a commit links carries its
# authenticator, and the meter record names the key in force. The design and
# the formats: docs/mystery.md, "Store".
import os

from micropython import const

from uth.let_go import let_go

from . import chain, retention
from .copies import COPY_INDEX, COPY_PAYLOAD, COPY_SEQ, TMP_NAME, Pair, exists
from .eventlog import RESERVE_BLOCKS, Log
from .meter import Meter
from .record import from_record, to_record

# The fields of the side wagers' copy that counts (Store._wagers_copy):
# [which of the two, its seq, the log record it names, that record's hash].
_WAGERS_INDEX = const(0)
_WAGERS_SEQ = const(1)
_WAGERS_LOG_SEQ = const(2)
_WAGERS_LOG_HASH = const(3)

# The first event of each kind of operation: a round (its hits follow), a
# validation (its payment follows), a reset, a configuration, a setting, a
# settlement, a record key, the generator seeded, the REPL opened, a
# setting's change refused mid-cycle, a fault of the board raised or cleared,
# a program accepted, a start, the controller's door opened or closed,
# service mode entered or left, the clock set.
_OPERATION_STARTS = ("round", "validated", "reset", "config", "setting", "settled", "key",
                     "seed", "repl", "setting_refused", "fault", "fault_cleared", "program",
                     "start", "door", "service", "clock")

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


class Store:
    def __init__(self, root, segment_records=32, segments_kept=8,
                 reserve_blocks=RESERVE_BLOCKS):
        self.root = root
        self.segment_records = segment_records
        self.segments_kept = segments_kept
        self.reserve_blocks = reserve_blocks
        # Made with the store, so its lasting strings lie together rather
        # than among a commit's passing ones.
        self._tmp = root + "/" + TMP_NAME
        from . import oldstores  # the earlier formats' names; let go after the boot

        self._meters = Pair(root, ("meter.a", "meter.b"),
                            ("UTHMETER3", oldstores.METER2_MAGIC, oldstores.METER_MAGIC),
                            "meter")
        self._hits = Pair(root, ("hits.a", "hits.b"),
                          ("UTHHITS2", oldstores.HITS_MAGIC), "recent hits")
        self._wager_copies = Pair(root, ("wagers.a", "wagers.b"), ("UTHWAGERS1",),
                                  "wager meters")
        self._drbg_copies = Pair(root, ("drbg.a", "drbg.b"), ("UTHDRBG1",),
                                 "generator state")
        self.log = Log(root)
        # Up to where the log was collected (retention.py): a record past it
        # is not to be dropped.
        self.mark = retention.Mark(root, self._tmp)
        # The room for uncollected records a LOCK, and any other operation
        # but a hit's validation and reset, must leave (retention.py).
        self.lock_needs = retention.LOCK_NEEDS
        self.op_needs = retention.OP_NEEDS
        # The record key in force (bytes) and its id; None: none given yet,
        # and records go unsigned. keys.py and record_mac.py load only once a
        # key is named: a table never given one keeps that heap.
        self.key = None
        self.key_id = None
        # The generator's state (drbg.HmacDrbg), in a copy of its own that
        # the meter record names (apart from it: a Pico's littlefs keeps the
        # meter record inline only under 512 bytes); None: not instantiated
        # yet (a board from before it, which draws from its own source
        # until a `seed`).
        self.drbg = None
        self.drbg_copy = None  # which copy the meter record names, 0 or 1; None: none
        # The program a technician accepted (its SHA-256, hex), which the
        # start's check compares (table/program_check.py): kept in the hits
        # copy, which the meter record names, because the meter record has no
        # room left under 512 bytes; None: none accepted yet.
        self.program = None
        self.commit_seq = 0
        self.hits_seq = 0  # the hits copy the meter record names; 0: none yet
        # (hit count, retained, settings) when the hits copy was last
        # written: only a validation changes the list, and it counts the hit.
        self._rare_written = (0, 0, {})
        self.head_seq = 0
        self.head_hash = chain.GENESIS
        self.warnings = []
        self.loaded = False  # a meter record read (or a new store's written)
        # The side wagers' meters (wagers.WagerMeters); None until a round
        # is settled: the module stays out of the heap of a table never sent one.
        self.wagers = None
        self._wagers_copy = None  # the copy that counts (_WAGERS_*); None: none yet

    # ---- the meter record and the hits copy ----

    def _write_state(self, meter, commit_seq, head_seq, head_hash, hits_seq, key_id,
                     drbg_copy=None):
        payload = {"meter": to_record(meter), "log_seq": head_seq, "log_hash": head_hash,
                   "hits_seq": hits_seq}
        if key_id is not None:  # a store never given a key writes what it always did
            payload["key_id"] = key_id
        if drbg_copy is not None:  # nor does one never seeded
            payload["drbg"] = drbg_copy
        self._meters.put(commit_seq % 2, commit_seq, payload, self._tmp)

    def _write_hits(self, last_hits, kept_settings=None, retained=0, program=None):
        # Into the copy the meter record does not name; it counts once the
        # meter record naming it has landed.
        hits_seq = self.hits_seq + 1
        payload = {"hits": last_hits, "settings": kept_settings or {}, "retained": retained}
        if program is not None:  # a store never given one writes what it always did
            payload["program"] = program
        self._hits.replace(hits_seq % 2, hits_seq, payload, self._tmp)
        return hits_seq

    def _rare_changed(self, meter):
        return self._rare_written != (meter.hits, meter.retained, meter.settings)

    def _read_hits(self, hits_seq):
        # (recent hits, settings, retained) from the copy the record names.
        if hits_seq == 0:
            return [], {}, 0
        for copy in self._hits.found(self.warnings):
            if copy[COPY_SEQ] == hits_seq:
                payload = copy[COPY_PAYLOAD]
                if type(payload) is list:
                    from . import oldstores

                    return oldstores.hits_rare(payload)
                self.program = _program_digest(payload.get("program"))
                return payload["hits"], payload["settings"], payload["retained"]
        raise StoreFault("the recent hits the meter record names (copy %d) are unreadable"
                         % hits_seq)

    # ---- the side wagers' meters ----

    def _write_wagers(self, meters, log_seq, log_hash):
        # Over the copy that does not count; once whole, it counts.
        copy = self._wagers_copy
        index, seq = (0, 0) if copy is None else (1 - copy[_WAGERS_INDEX], copy[_WAGERS_SEQ])
        payload = {"log_seq": log_seq, "log_hash": log_hash, "wagers": meters.to_record()}
        self._wager_copies.write(index, seq + 1, payload)
        return [index, seq + 1, log_seq, log_hash]

    def _read_wagers(self):
        # The newest readable copy counts; a settlement committed after the
        # meter record moves the log head to its record.
        best = None
        for index in range(2):
            copy = self._wager_copies.read(index)
            if copy is not None and (best is None or copy[COPY_SEQ] > best[COPY_SEQ]):
                best = copy
        if best is None:
            return
        payload = best[COPY_PAYLOAD]
        try:
            log_seq, log_hash = payload["log_seq"], payload["log_hash"]
            from . import wagers

            self.wagers = wagers.from_record(payload["wagers"])
            if type(log_seq) is not int or not isinstance(log_hash, str):
                raise ValueError("no log record named")
        except (KeyError, TypeError, ValueError) as error:
            raise StoreFault("wager meters copy wagers.%s: %s"
                             % ("ab"[best[COPY_INDEX]], error)) from None
        self._wagers_copy = [best[COPY_INDEX], best[COPY_SEQ], log_seq, log_hash]
        if log_seq > self.head_seq:
            self.head_seq, self.head_hash = log_seq, log_hash

    def _check_wagers(self, settled):
        # settled: the last settlement record in the kept log, or None. The
        # copy that counts must be its, or a settlement's meters went missing.
        copy = self._wagers_copy
        if settled is None:
            if copy is not None and copy[_WAGERS_LOG_SEQ] > self.dropped():
                raise StoreFault("the wager meters name log record %d, which is no settlement"
                                 % copy[_WAGERS_LOG_SEQ])
            return
        if (copy is None or copy[_WAGERS_LOG_SEQ] != settled["seq"]
                or copy[_WAGERS_LOG_HASH] != settled["hash"]):
            raise StoreFault("the wager meters are not those of the last settlement (log "
                             "record %d)" % settled["seq"])

    # ---- reading the log ----

    def _reads(self, since):
        # Nothing before a meter record has been read.
        if not self.loaded:
            return
        yield from self.log.reads(since, self.committed_head)

    def committed_head(self):
        # The last committed record's number: a log read stops there.
        return self.head_seq

    def read_log(self, since=0):
        # Committed records only: never one past the meter's log head (an
        # operation that did not commit, a round that hit among them).
        for record in self._reads(since):
            if record is not None:
                yield record

    def export_log(self, since):
        # read_log for a host's export, which runs a few records a turn
        # while the table commits: one item per record read (None for one
        # before `since`), so a caller can bound the reading, not only the
        # sending. A record that does not follow the one before ends the
        # export with LogTrimmed: it never goes out with a gap.
        expected = None
        for record in self._reads(since):
            if record is not None:
                seq = record.get("seq")
                if expected is not None and seq != expected:
                    raise LogTrimmed(expected)
                expected = seq + 1
            yield record

    def dropped(self):
        # Records removed to keep the log bounded (the oldest kept is the next).
        return self.log.dropped(self.head_seq)

    # ---- collection (retention.py) ----

    def capacity(self):
        # The uncollected records the log surely keeps.
        return retention.capacity(self.segment_records, self.segments_kept)

    def uncollected(self):
        return self.head_seq - self.mark.seq

    def lost(self):
        # Records dropped before they were collected: what a power cut or a
        # fault cost, never play (`log_dropped` in the meters).
        return self.mark.lost_now(self.dropped())

    def log_problem(self, needs):
        # Why an operation that leaves less than `needs` records of room for
        # uncollected ones is refused, or None.
        cap = self.capacity()
        if self.uncollected() + needs <= cap:
            return None
        return ("the log is full: %d of its %d records not collected yet; collect the log "
                "(the floor, or uthctl log export with the key switch held)"
                % (self.uncollected(), cap))

    def warns(self, adding):
        # Whether `adding` more records take the uncollected ones to the
        # warning's share (retention.WARN_PERCENT) from below it.
        line = retention.warn_at(self.capacity())
        return self.uncollected() < line <= self.uncollected() + adding

    def record_hash(self, seq):
        # The hash of committed record `seq` as the log keeps it; None: not kept.
        for record in self.read_log(seq):
            return record["hash"] if record.get("seq") == seq else None
        return None

    def collect(self, seq):
        # Every record up to `seq` collected: the mark moves, on flash first,
        # its write counted off the room as a commit's is.
        self.log.count_commit()
        self.mark.advance(seq, self.dropped())

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

    def room_problem(self):
        # Why the next commit might not fit, or None. Checked before an
        # operation touches the meter, so a full flash refuses it with
        # nothing written rather than failing halfway through a commit.
        return self.log.room_problem(self.reserve_blocks)

    def prepare_room(self, commits=2):
        # At a quiet moment (MysteryBonus.prepare): the room measured ahead
        # of the next `commits` commits' need.
        self.log.prepare_room(self.reserve_blocks, commits)

    # ---- boot ----

    def boot(self):
        # The meter as last committed; a fresh store gives an unconfigured one.
        # The room is measured once the boot's own writes are done, so the
        # first commit after a power-on need not measure it.
        self.log.room = None
        try:
            meter = self._boot()
        finally:
            let_go("mystery.oldstores")  # read at the boot only: play never needs it
        self.log.measure_room()
        return meter

    def _boot(self):
        from . import oldstores

        for tmp in (self._tmp, self.root + "/" + oldstores.TMP_NAME):
            if exists(tmp):
                os.remove(tmp)
        newest = self._meters.newest(self.warnings)
        meter_copy_unreadable = bool(self.warnings)
        if newest is None:
            # (keys: keys.NAME, its module not loaded)
            if (meter_copy_unreadable or self.log.segments() or self._hits.any_exists()
                    or self._drbg_copies.any_exists() or exists(self.root + "/keys")):
                raise StoreFault("no readable meter record (%s)" % (
                    "; ".join(self.warnings) or "log or recent hits without a meter"))
            # A new store: its first meter record lands before any log record
            # can, so a power cut never leaves a log without a meter.
            meter = Meter()
            self._write_state(meter, 0, 0, chain.GENESIS, 0, None)
            self.loaded = True
            return meter
        self.commit_seq, payload = newest[COPY_SEQ], newest[COPY_PAYLOAD]
        current = "hits_seq" in payload  # else a UTHMETER1 record (oldstores.py)
        try:
            if current:
                hits_seq = payload["hits_seq"]
                last_hits, kept_settings, retained = self._read_hits(hits_seq)
            else:
                hits_seq, last_hits, kept_settings, retained = oldstores.meter_rare(payload)
            meter = from_record(payload["meter"], last_hits, kept_settings, retained)
            self.head_seq, self.head_hash = payload["log_seq"], payload["log_hash"]
        except (ValueError, KeyError, TypeError) as error:
            raise StoreFault(str(error)) from None
        self._load_key(payload.get("key_id"))
        self._load_drbg(payload.get("drbg"))
        self._read_wagers()  # a settlement since the meter record moves the head
        self.hits_seq = hits_seq
        self.loaded = True
        # None: the next commit writes the hits to a copy of their own.
        self._rare_written = (meter.hits, meter.retained, dict(meter.settings)) \
            if current else None
        if self._judge_uncommitted(meter, meter_copy_unreadable) and not meter.exposed:
            # Kept on flash before the records that reveal the value go, so
            # a power cut in this boot cannot forget it.
            meter.exposed = True
            self._write_state(meter, self.commit_seq + 1, self.head_seq, self.head_hash,
                              self.hits_seq, self.key_id, self.drbg_copy)
            self.commit_seq += 1
        if meter.exposed:
            self.warnings.append(EXPOSED_WARNING % meter.cycle)
        self.log.drop_past(self.head_seq)
        self._check_log()
        self.mark.boot(self.head_seq, self.warnings)
        self._advance_drbg(meter)
        return meter

    def _beyond_head(self, meter):
        # The records past the meter's log head: how many, how many
        # operations they start, the kind of the first, and whether any
        # reveals the live cycle's hit value.
        count, operations, first, reveals = 0, 0, None, False
        segment = None
        for name, record in self.log.past(self.head_seq):
            if name != segment:  # segments come newest first: the last seen holds the first
                segment, first = name, record.get("ev")
            count += 1
            operations += record.get("ev") in _OPERATION_STARTS
            reveals = reveals or meter.reveals(record)
        return count, operations, first, reveals

    def _judge_uncommitted(self, meter, meter_copy_unreadable):
        # Records past the head are one operation whose meter record never
        # landed: it did not happen, and is reported by its kind and where it
        # starts alone. More than one operation is a meter record that went
        # back, a fault rather than a silent rollback. Gives whether the
        # records reveal the live cycle's hit value.
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

    # ---- the generator's state ----

    def _load_drbg(self, index):
        # The state in the copy the meter record names; missing, unreadable
        # or damaged it is a fault: the generator never starts from a guess.
        if index is None:
            return
        from . import drbg

        copy = self._drbg_copies.read(index) if index in (0, 1) else None
        if copy is None:
            raise StoreFault("the generator state the meter record names (%r) is unreadable"
                             % (index,))
        try:
            self.drbg = drbg.from_record(copy[COPY_PAYLOAD])
        except ValueError as error:
            raise StoreFault("generator state copy drbg.%s: %s" % ("ab"[index], error)) \
                from None
        self.drbg_copy = index

    def _write_drbg(self, state, commit_seq):
        # Over the copy the meter record does not name, which counts once
        # the meter record naming it (commit_seq) has landed. Gives its index.
        index = 0 if self.drbg_copy is None else 1 - self.drbg_copy
        self._drbg_copies.replace(index, commit_seq, state.to_record(), self._tmp)
        return index

    def _advance_drbg(self, meter):
        # At every boot, before any draw: the state moves on and lands, so
        # a draw whose commit a power cut stopped is never drawn again from
        # the state it started from, whatever the board's source gives.
        if self.drbg is None:
            return
        self.drbg.generate(0, b"boot")
        commit_seq = self.commit_seq + 1
        index = self._write_drbg(self.drbg, commit_seq)
        self._write_state(meter, commit_seq, self.head_seq, self.head_hash, self.hits_seq,
                          self.key_id, index)
        self.commit_seq, self.drbg_copy = commit_seq, index

    # ---- the record key ----

    def _load_key(self, kid):
        # The key the meter record names, from the keys file; a key named
        # but not there (or unreadable) is a fault: its records could not be
        # told from forgeries.
        if kid is None:
            return
        from . import keys

        try:
            key = keys.read(keys.path(self.root)).get(kid)
        except (ValueError, TypeError, OSError) as error:
            raise StoreFault("record key %s: %s" % (kid, error)) from None
        finally:
            let_go(keys.__name__)  # read at boot and written at a provision only
        if key is None:
            raise StoreFault("the record key the meter record names (%s) is not on flash" % kid)
        self.key, self.key_id = key, kid

    def _signer(self, new_key):
        # (key, key id) that signs a commit's records: the key in force; a
        # replacement is signed with the key it replaces, the first key
        # with itself. None: unsigned.
        if self.key is not None:
            return self.key, self.key_id
        return new_key

    def _install_key(self, new_key):
        # Beside the key in force until the meter record naming it lands.
        from . import keys

        kept = [] if self.key is None else [(self.key_id, self.key)]
        try:
            keys.write(keys.path(self.root), self._tmp, kept + [(new_key[1], new_key[0])])
        finally:
            let_go(keys.__name__)

    # ---- commit ----

    def commit(self, meter, events, wager_meters=None, new_key=None, drbg=None, program=None):
        # One atomic step for one operation: its log records, then its meter
        # record, or for a settlement (wager_meters given) the side wagers'
        # meters, which name its record. new_key, (key, key id): the key in
        # force once the meter record lands; it is on flash before the log
        # records are, and alone there after. drbg: the generator's state
        # after the operation's draw, in force once the meter record lands.
        # program: the digest of a program accepted, in force the same way.
        self.log.count_commit()
        seq, prev = self.head_seq, self.head_hash
        signer = self._signer(new_key)
        if signer is not None:
            from .record_mac import record_auth
        records = []
        for event in events:
            seq += 1
            record = chain.link(event, seq, prev)
            prev = record["hash"]
            if signer is not None:
                record["auth"] = record_auth(signer[0], signer[1], prev)
            records.append(record)
        if new_key is not None:
            self._install_key(new_key)
        if records:
            self.log.append(records, self.segment_records, self.segments_kept)
        if wager_meters is not None:
            copy = self._write_wagers(wager_meters, seq, prev)
            self.head_seq, self.head_hash = seq, prev
            self.wagers, self._wagers_copy = wager_meters, copy
            return records
        hits_seq = self.hits_seq
        if program is not None or self._rare_changed(meter):
            hits_seq = self._write_hits(meter.last_hits, meter.settings, meter.retained,
                                        self.program if program is None else program)
        in_force = self.key_id if new_key is None else new_key[1]
        drbg_copy = self.drbg_copy
        if drbg is not None:  # a draw's or a seeding's state, beside the one in force
            drbg_copy = self._write_drbg(drbg, self.commit_seq + 1)
        self._write_state(meter, self.commit_seq + 1, seq, prev, hits_seq, in_force, drbg_copy)
        self.commit_seq += 1
        if drbg is not None:
            self.drbg, self.drbg_copy = drbg, drbg_copy
        self.head_seq, self.head_hash = seq, prev
        self.hits_seq = hits_seq
        self._rare_written = (meter.hits, meter.retained, dict(meter.settings))
        if program is not None:
            self.program = program
        if new_key is not None:
            self.key, self.key_id = new_key
            self._prune_keys()
        return records

    def _prune_keys(self):
        # Once the meter record names the new key, the old one goes.
        from . import keys

        try:
            keys.write(keys.path(self.root), self._tmp, [(self.key_id, self.key)])
        finally:
            let_go(keys.__name__)


def _program_digest(found):
    # The accepted program's digest as the hits copy holds it: 64 hex digits, or None.
    if found is None or (isinstance(found, str) and len(found) == 64
                         and not found.strip("0123456789abcdef")):
        return found
    raise ValueError("the accepted program's digest is not a SHA-256: %r" % (found,))
