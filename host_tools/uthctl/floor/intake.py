# What the floor does with each message it receives: a log record joins its
# table's hash chain or is refused with its reason; a duplicate (the same
# seq and hash again, as a bridge resends after a lost acknowledgement) is
# counted and dropped; a record past a gap is refused and the missing ones
# asked for. Nothing refused reaches `records`. A meters snapshot at the
# floor's head is checked against the records: the accounting identity on
# its meters, and the meters against the records added up (analysis/ledger).
# Those checks run as the records join, on each table's running state
# (running.py): a hit or a redraw is checked against its cycle's stored
# commitment, never by a walk of the log.
# A record of a table with a key file must carry its board's authenticator
# once a key is in force (table_keys.py). A table met past its record 1
# starts where its board's signed head says its kept log starts, never
# where its host says (log_start.py). An unsigned record of a table whose
# key file holds a key is stored only once its board's signature covers it
# by the chain (held.py). Each message is handled on its own:
# whatever goes wrong in one (a bug, the database) refuses that message,
# counted as `internal` on its table, and never stops the next.
import json
import time

from mystery import chain

from ..analysis import logread
from ..analysis.table_audit import identity_failures, ledger_failures
from ..wire import topics
from . import collected, held, limits, log_start, record_alerts, running
from .intake_held import HeldRecords, forged_alert
from .table_keys import KeyFileError

ACCEPTED, DUPLICATE, REFUSED, KEPT = "accepted", "duplicate", "refused", "kept"
EARLY = "early"  # a record past a gap: not stored, the missing ones asked for
INTERNAL = "internal"  # refused because the floor failed on it, not for what it said
ASK_AGAIN_S = 2.0  # the least time between two requests for the same records
REVEALING = ("hit", "redraw")  # records that open a cycle's commitment


class Intake(HeldRecords):
    """Checks each table's messages from the broker and stores what holds."""
    def __init__(self, store, casino, log=None, keys=None):
        # keys: the floor's TableKeys (the service always has them); None: no
        # key is checked and no table called unsigned, as before record keys.
        self.store = store
        self.casino = casino
        self.keys = keys
        self.starts = log_start.LogStarts(keys)
        self.held = held.Held()  # unsigned records its board's signature has not covered
        self.log = log or (lambda words: None)
        self.requests = []  # (table, command) for the floor to publish
        self.asked = {}  # table -> (since, when) of the last log request
        self.counts = {ACCEPTED: 0, DUPLICATE: 0, REFUSED: 0, KEPT: 0, EARLY: 0, INTERNAL: 0}
        self.told_unsigned = set()  # tables whose `unsigned` alert this run has raised
        self.told_signed = set()  # tables whose `unsigned` alert this run has cleared
        # table -> its record checks' running state at its head, as the
        # database holds it (running.Running): read once, then kept.
        self.checks = {}
        self.batching = False  # in a batch: a failure raises (take)
        self.replaced_later = []  # (table, key record) to mark in its key file once committed
        self.confirmations = collected.Confirmations(keys)  # its board may let records go

    @property
    def ledgers(self):
        # table -> its records' accounts added up so far (running sums, no chart).
        return {table: checks.ledger for table, checks in self.checks.items()}

    def take(self, topic, payload):
        # One message: its outcome, ACCEPTED, DUPLICATE, KEPT, EARLY or REFUSED.
        # In a batch (intake_batch.py) a failure raises, and the batch is
        # taken again one message at a time, each in its own transaction.
        try:
            outcome, reason = self._take(topic, payload)
        except Exception as error:  # noqa: BLE001 -- this message's alone: the next is taken
            if self.batching:
                raise
            outcome, reason = REFUSED, "internal error: %s: %s" % (type(error).__name__, error)
            self._count_internal(topic)
        self.counts[outcome] += 1
        if outcome == REFUSED:
            self.log("refused %s: %s" % (limits.storable(topic), reason))
            self._refuse(topic, reason, payload)
        elif outcome == EARLY:
            self.log("held back %s: %s" % (topic, reason))
        return outcome

    def _refuse(self, topic, reason, payload):
        try:
            self.store.refuse(topic, reason, payload)
        except Exception as error:  # noqa: BLE001 -- the database down: said, and on
            if self.batching:
                raise
            self.log("the refusal of %s was not stored: %s: %s"
                     % (limits.storable(topic), type(error).__name__, error))

    def _count_internal(self, topic):
        self.counts[INTERNAL] += 1
        where = topics.parse(topic) if isinstance(topic, str) else None
        if where is None or where[0] != self.casino:
            return
        self.checks.pop(where[1], None)  # its running state may be half moved
        try:
            self.store.count_internal(self.casino, where[1])
        except Exception as error:  # noqa: BLE001 -- a count lost, never the floor
            self.log("table %s's internal count not stored: %s" % (where[1], error))

    def _take(self, topic, payload):
        where = topics.parse(topic)
        if where is None:
            return REFUSED, "not a floor topic (uth/<casino>/<table>/<kind>)"
        casino, table, kind = where
        if casino != self.casino:
            return REFUSED, "another casino's topic (this floor is %r)" % self.casino
        if kind == topics.COMMAND:
            return KEPT, None  # the floor's own requests, seen on uth/#
        try:
            message = limits.read_message(payload)
        except limits.Unreadable as why:
            return REFUSED, "not a JSON object: %s" % why
        if message.get("table") != table:
            return REFUSED, "says table %r on table %r's topic" % (message.get("table"), table)
        return {topics.EVENT: self._event, topics.METERS: self._meters,
                topics.STATUS: self._status}[kind](table, message)

    # ---- events and records ----

    def _event(self, table, message):
        if "head" in message:
            return self._head(table, message["head"])  # ours, or the audit's
        if "record" in message:
            # A "first_kept" beside it is the bridge's word: never taken.
            return self._record(table, message["record"])
        event = message.get("event")
        if not isinstance(event, dict) or not isinstance(event.get("ev"), str):
            return REFUSED, "an event message holds neither a record nor an event"
        problem = limits.text_problem(event["ev"], limits.EV_WIDTH, "the event's 'ev'")
        if problem:
            return REFUSED, "a live event the floor cannot hold: %s" % problem
        if "seq" in event:
            return REFUSED, "a live event with a seq: records come as records"
        self.store.notice(table, event)
        record_alerts.apply(self.store, table, event)
        return KEPT, None

    def _head(self, table, answer):
        # A board's `head` answer: to our nonce, where a new table's log starts.
        start = self.starts.heard(table, answer)
        if start is None and self.starts.unsigned(table, answer):
            self._held_alert(table, answer)
        if start is not None and (self.store.table(table) or {}).get("last_seq") is None:
            self.log("table %s: its board's signed head says its log starts at record %d"
                     % (table, start))
            self.ask_log(table, start)
        return KEPT, None

    def _record(self, table, record):
        problem = logread.shape_problem(record) or limits.record_problem(record)
        if problem:
            return REFUSED, "not a log record: %s" % problem
        state = self.store.table(table) or {}
        last_seq = state.get("last_seq")
        if last_seq is not None and record["seq"] <= last_seq:
            return self._again(table, record, state.get("key_id"))
        first = last_seq + 1 if last_seq is not None else self.starts.start(table) or 1
        if record["seq"] < first:  # a new table's, before its board's oldest kept record
            self.store.raise_alert(table, "refused", "record %d is before record %d, the "
                                   "oldest its board keeps by its signed head: not the "
                                   "board's" % (record["seq"], first))
            return REFUSED, "record %d is before its board's oldest kept record, %d" % (
                record["seq"], first)
        if self._unvouched(table, record, state):
            return self._hold(table, record, first)
        if record["seq"] > first:
            return self._past_head(table, record, state, first)
        return self._join(table, record, state)

    def _past_head(self, table, record, state, first):
        # A record past a gap (or a new table's past record 1): refused when
        # no board made it (its hash not its own, or no key of the table's
        # signed it), rather than a gap alert and the table asked for its log
        # on a forger's word; else held back and the missing ones asked for.
        seq, last_seq = record["seq"], state.get("last_seq")
        ok, why = chain.verify([record])
        if not ok:
            self.store.raise_alert(table, "refused", "record %d refused: %s" % (seq, why))
            return REFUSED, "record %d breaks the chain: %s" % (seq, why)
        if self.keys is not None:
            refused, _ = self._refused_unless(table, seq, self.keys.check_early, record,
                                              state.get("key_id"))
            if refused:
                return refused
        if record.get("auth") is not None and self._vouch(table, record, state, first):
            return EARLY, ("record %d: its board's signature covers the held records before "
                           "it, asked for again" % seq)
        if last_seq is None:  # the floor missed the table's first records
            return self._before_start(table, seq)
        self.ask_log(table, last_seq + 1)
        self.store.raise_alert(table, "gap", "records %d-%d missing: asked the table again"
                               % (last_seq + 1, seq - 1))
        return EARLY, "record %d after record %d: a gap" % (seq, last_seq)

    def _before_start(self, table, seq):
        # Asked again from record 1 (or the board's oldest kept, by its signed
        # head), and the board asked where its kept log starts now.
        start = self.starts.start(table)
        self.ask_log(table, start or 1)
        # Asked of a table with no usable key too: its board's answer, which
        # nothing authenticates, cannot start its log but can show that its
        # record 1 is gone (a `held` alert, _head).
        request = self.starts.ask(table, unkeyed=True)
        if request is not None:
            self.requests.append((table, request))
        if start is None and not self.starts.can_ask(table):
            # Said here; alerted only once its board says record 1 is gone:
            # it is also how a floor that came up after the bridge meets the
            # table, until record 1 comes again.
            self.log("table %s: record %d held back; its log on the floor starts at record 1 "
                     "or where its board's signed head says, and no key the floor holds for "
                     "it can sign a head" % (table, seq))
        return EARLY, "record %d of a table whose earlier records the floor lacks" % seq

    def _join(self, table, record, state):
        # The table's next record (or the first it still keeps): stored when
        # it follows the head and its board's key (if any) signed it.
        seq, last_seq = record["seq"], state.get("last_seq")
        first_prev = state["last_hash"] if last_seq is not None else (
            chain.GENESIS if seq == 1 else None)
        ok, message = chain.verify([record], first_prev=first_prev)
        if not ok:
            self.store.raise_alert(table, "refused", "record %d refused: %s" % (seq, message))
            return REFUSED, "record %d breaks the chain: %s" % (seq, message)
        refused, in_force = self._refused_unless(table, seq, self._authenticity, record,
                                                 state.get("key_id"))
        if refused:
            return refused
        checks = self._checks_for(table, state, record)
        checks.take(record)
        self.store.append(self.casino, table, record, key_id=in_force, checks=checks,
                          known=bool(state))
        checks.written(self._cycle_reader(table))
        self._not_the_boards(table, self.held.settle(table, seq, in_force is not None))
        if in_force is None:
            self._unsigned(table)
        else:
            self._signed(table, seq, in_force)
        self._collected(table, record, in_force)
        if record["ev"] in REVEALING and checks.problem:
            # A revealed hit value that does not open its cycle's commitment
            # (or an earlier problem of the log's, as `uthctl mystery verify`
            # reports the first): the record is the board's own (its chain
            # holds), so it stays on the floor, under an alert.
            self.store.raise_alert(table, "commitment", checks.problem)
        record_alerts.apply(self.store, table, record, self.log)  # a door, a display's fault
        if last_seq is None and seq > 1:
            self.store.raise_alert(table, "gap", "the table's log on the floor starts at "
                                   "record %d: its board's signed head says it keeps its "
                                   "records from there, records 1-%d dropped" % (seq, seq - 1))
        if record["ev"] == "key" and self.keys is not None and in_force is not None \
                and isinstance(record.get("was"), str):
            self._mark_replaced(table, record)
        return ACCEPTED, None

    def _collected(self, table, record, in_force):
        # Stored: its board told so when due (collected.py), and a board's
        # log filling with uncollected records alerted; a start with its
        # clock unset answered with the floor's clock, signed.
        if record["ev"] == collected.WARNING:
            self.store.raise_alert(table, "log", collected.warning_text(record))
        for request in (self.confirmations.after(table, record, in_force),
                        collected.clock_request(self.keys, table, record, in_force)):
            if request is not None:
                self.requests.append((table, request))

    def _mark_replaced(self, table, record):
        # The board's own replacement, stored: its old key is never in force
        # again. In a batch its key file is marked once the batch is committed.
        if self.batching:
            self.replaced_later.append((table, record))
        try:
            self.keys.mark_replaced(table, record["was"], record["key_id"], record["seq"],
                                    write=not self.batching)
        except (KeyFileError, OSError) as error:
            self.store.raise_alert(table, "keys", "key %s, replaced by the board's record "
                                   "%d, is not marked replaced in its key file: %s"
                                   % (record["was"], record["seq"], error))

    def _refused_unless(self, table, seq, check, record, in_force):
        # check(table, record, in_force) gives (problem, key in force after):
        # ((REFUSED, why), None) for a forgery or a key file the floor cannot
        # read, else (None, the key in force after the record).
        try:
            forged, in_force = check(table, record, in_force)
        except KeyFileError as error:
            self.store.raise_alert(table, "keys", str(error))
            return (REFUSED, "record %d not checked: %s" % (seq, error)), None
        if not forged:
            return None, in_force
        return self._forged(table, seq, forged), None

    def _forged(self, table, seq, problem):
        self.store.raise_alert(table, "forged", forged_alert(self.casino, table, seq, problem))
        return REFUSED, "record %d forged: %s" % (seq, problem)

    def _authenticity(self, table, record, in_force):
        # (problem or None, the key in force after the record).
        if self.keys is None:
            return None, in_force
        return self.keys.check(table, record, in_force)

    def _signed(self, table, seq, in_force):
        # A key in force, so every later record is signed (an unsigned one is
        # refused as forged): an `unsigned` alert raised for the records from
        # before the key is no longer true. Cleared once a run a table.
        if table in self.told_signed:
            return
        self.told_signed.add(table)
        reason = ("key %s in force at record %d; every record after it must carry its "
                  "authenticator" % (in_force, seq))
        if self.store.clear_alert(table, "unsigned", reason):
            self.log("table %s: its unsigned alert cleared: %s" % (table, reason))

    def _checks_for(self, table, state, record):
        # The running state the record is checked on: a new one for the
        # table's first record (record 1, or the oldest its board keeps by
        # its signed head: the only ones that join first), else the state at
        # the floor's head.
        if state.get("last_seq") is None:
            self.checks[table] = running.Running(record, self._cycle_reader(table),
                                                 dropped=record["seq"] - 1)
            return self.checks[table]
        return self._checks_at_head(table, state)

    def _checks_at_head(self, table, state):
        # Kept in memory; else as the database holds it; else (a database
        # from before running checks) walked once from the table's records
        # and stored, so no later start walks them again.
        checks = self.checks.get(table)
        if checks is not None and checks.seq == state["last_seq"]:
            return checks
        read = self._cycle_reader(table)
        checks = running.stored(state, read)
        if checks is None:
            checks = running.walked(self.store.walk_records(table), read)
            if self.store.save_checks(table, checks):
                checks.written(read)
            self.log("table %s: record checks walked once from its %d records' log"
                     % (table, checks.seq - state["first_seq"] + 1))
        self.checks[table] = checks
        return checks

    def _cycle_reader(self, table):
        return lambda fact, key: self.store.cycle_fact(table, fact, key)

    def _again(self, table, record, in_force):
        stored = self.store.record_at(table, record["seq"])
        if stored is not None and stored["hash"] == record["hash"] and stored == record:
            self.store.count_duplicate(table)
            return DUPLICATE, None
        if self.keys is not None:  # one no key of the table's signed is a forgery, named so
            refused, _ = self._refused_unless(table, record["seq"], self.keys.check_early,
                                              record, in_force)
            if refused:
                return refused
            if record.get("auth") is None and self.starts.can_ask(table):
                return self._forged(table, record["seq"], "it carries no authenticator and "
                                    "differs from the record %d the floor holds, which its "
                                    "board's signed chain covers" % record["seq"])
        self.store.raise_alert(table, "refused", "record %d differs from the one the floor "
                               "holds: replayed or forged" % record["seq"])
        if stored is None:
            return REFUSED, "record %d is before the floor's first record" % record["seq"]
        return REFUSED, "record %d differs from the record %d the floor holds" % (
            record["seq"], record["seq"])

    # ---- snapshots ----

    def _meters(self, table, message):
        meters = message.get("meters")
        if not isinstance(meters, dict) or type(meters.get("log_seq", 0)) is not int:
            return REFUSED, "a meters message without meters"
        problems = self._accounts_problems(table, meters)
        if problems:
            self.store.raise_alert(table, "accounts", "; ".join(problems))
            return REFUSED, "meters at record %d that the records do not add up to: %s" % (
                meters["log_seq"], "; ".join(problems))
        self.store.set_table(self.casino, table, meters=json.dumps(meters, sort_keys=True),
                             meters_at=time.time())
        state = self.store.table(table)
        behind = state["last_seq"] or 0
        if meters.get("log_seq", 0) > behind:
            self.ask_log(table, behind + 1)  # records the broker lost on the way
        elif meters.get("log_seq") == state["last_seq"] and \
                meters.get("log_hash") != state["last_hash"]:
            self.store.raise_alert(table, "refused", "the board's log head %d is not the "
                                   "floor's record %d" % (behind, behind))
        if meters.get("exposed"):
            self.store.raise_alert(table, "exposed", "the cycle's hit value was exposed: "
                                   "no round until it is redrawn")
        return KEPT, None

    def _accounts_problems(self, table, meters):
        # At the floor's head (the same record, by its hash), what `uthctl
        # audit` finds wrong in the accounts; elsewhere nothing can be compared.
        state = self.store.table(table) or {}
        if state.get("last_seq") is None or meters.get("log_seq") != state["last_seq"] or \
                meters.get("log_hash") != state["last_hash"]:
            return []
        return identity_failures(meters) + ledger_failures(
            self._checks_at_head(table, state).ledger, meters)[1]

    def _status(self, table, message):
        status = message.get("status")
        if status not in ("online", "offline"):
            return REFUSED, "a status that is neither online nor offline"
        values = {"status": status, "status_at": time.time()}
        if isinstance(message.get("board"), dict):
            values["board_status"] = json.dumps(message["board"], sort_keys=True)
        self.store.set_table(self.casino, table, **values)
        if status == "online" and self.store.table(table)["last_seq"] is None:
            # A table the floor holds nothing of (the bridge published before
            # the floor came up, or the floor is new): its log, asked now.
            self.ask_log(table, 1)
        if status == "offline":
            self.store.raise_alert(table, "offline", "the table's bridge went offline")
        return KEPT, None

    def ask_log(self, table, since):
        # Asks the table for its records from `since`, once in ASK_AGAIN_S.
        last = self.asked.get(table)
        now = time.monotonic()
        if last is not None and last[0] == since and now - last[1] < ASK_AGAIN_S:
            return
        self.asked[table] = (since, now)
        self.requests.append((table, {"cmd": "log", "since": since}))
