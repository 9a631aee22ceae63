# What the floor does with each message it receives: a log record joins its
# table's hash chain or is refused with its reason; a duplicate (the same
# seq and hash again, as a bridge resends after a lost acknowledgement) is
# counted and dropped; a record past a gap is refused and the missing ones
# asked for. Nothing refused reaches `records`. A meters snapshot at the
# floor's head is checked against the records: the accounting identity on
# its meters, and the meters against the records added up (analysis/ledger).
import json
import time

from mystery import chain

from ..analysis import ledger, log_verify, logread
from ..analysis.audit import identity_failures, ledger_failures
from . import topics

ACCEPTED, DUPLICATE, REFUSED, KEPT = "accepted", "duplicate", "refused", "kept"
EARLY = "early"  # a record past a gap: not stored, the missing ones asked for
ASK_AGAIN_S = 2.0  # the least time between two requests for the same records
REVEALING = ("hit", "redraw")  # records that open a cycle's commitment


class Intake:
    def __init__(self, store, casino, log=None):
        self.store = store
        self.casino = casino
        self.log = log or (lambda words: None)
        self.requests = []  # (table, command) for the floor to publish
        self.asked = {}  # table -> (since, when) of the last log request
        self.counts = {ACCEPTED: 0, DUPLICATE: 0, REFUSED: 0, KEPT: 0, EARLY: 0}
        # table -> its records' accounts walked so far, extended record by
        # record, so a snapshot's check does not read the table's whole log.
        self.ledgers = {}

    def take(self, topic, payload):
        # One message: its outcome, ACCEPTED, DUPLICATE, KEPT or REFUSED.
        outcome, reason = self._take(topic, payload)
        self.counts[outcome] += 1
        if outcome == REFUSED:
            self.log("refused %s: %s" % (topic, reason))
            self.store.refuse(topic, reason, payload)
        elif outcome == EARLY:
            self.log("held back %s: %s" % (topic, reason))
        return outcome

    def _take(self, topic, payload):
        where = topics.parse(topic)
        if where is None:
            return REFUSED, "not a floor topic (uth/<casino>/<table>/<kind>)"
        casino, table, kind = where
        if casino != self.casino:
            return REFUSED, "another casino's topic (this floor is %r)" % self.casino
        if kind == topics.COMMAND:
            return KEPT, None  # the floor's own requests, seen on uth/#
        message = _json_object(payload)
        if message is None:
            return REFUSED, "not a JSON object"
        if message.get("table") != table:
            return REFUSED, "says table %r on table %r's topic" % (message.get("table"), table)
        return {topics.EVENT: self._event, topics.METERS: self._meters,
                topics.STATUS: self._status}[kind](table, message)

    # ---- events and records ----

    def _event(self, table, message):
        if "head" in message:
            return KEPT, None  # a board's answer to the audit's `head`, for the audit
        if "record" in message:
            return self._record(table, message["record"], message.get("first_kept") is True)
        event = message.get("event")
        if not isinstance(event, dict) or not isinstance(event.get("ev"), str):
            return REFUSED, "an event message holds neither a record nor an event"
        if "seq" in event:
            return REFUSED, "a live event with a seq: records come as records"
        self.store.notice(table, event)
        if event["ev"] == "fault":
            self.store.raise_alert(table, "fault", str(event.get("reason")))
        return KEPT, None

    def _record(self, table, record, first_kept=False):
        # first_kept: the bridge says this is the first record its board
        # still keeps (its bounded log dropped those before).
        problem = logread.shape_problem(record)
        if problem:
            return REFUSED, "not a log record: %s" % problem
        state = self.store.table(table) or {}
        last_seq, last_hash = state.get("last_seq"), state.get("last_hash")
        seq = record["seq"]
        if last_seq is not None and seq <= last_seq:
            return self._again(table, record)
        if last_seq is None and seq > 1 and not first_kept:
            self.ask_log(table, 1)  # the floor missed the table's first records
            return EARLY, "record %d of a table whose earlier records the floor lacks" % seq
        if last_seq is not None and seq > last_seq + 1:
            self.ask_log(table, last_seq + 1)
            self.store.raise_alert(table, "gap", "records %d-%d missing: asked the table again"
                                   % (last_seq + 1, seq - 1))
            return EARLY, "record %d after record %d: a gap" % (seq, last_seq)
        first_prev = last_hash if last_seq is not None else (chain.GENESIS if seq == 1 else None)
        ok, message = chain.verify([record], first_prev=first_prev)
        if not ok:
            self.store.raise_alert(table, "refused", "record %d refused: %s" % (seq, message))
            return REFUSED, "record %d breaks the chain: %s" % (seq, message)
        self.store.append(self.casino, table, record)
        if table in self.ledgers:
            self.ledgers[table].walk([record])
        if record["ev"] in REVEALING:
            self._check_commitments(table)
        if last_seq is None and seq > 1:
            self.store.raise_alert(table, "gap", "the table's log on the floor starts at "
                                   "record %d: the board no longer kept the earlier ones" % seq)
        return ACCEPTED, None

    def _check_commitments(self, table):
        # A revealed hit value against its cycle's commitment, as `uthctl
        # mystery verify` checks an export: the record is the board's own
        # (its chain holds), so it stays on the floor, under an alert.
        result = log_verify.verify_log(self.store.records(table))
        if not result["ok"]:
            self.store.raise_alert(table, "commitment", result["problem"])

    def _again(self, table, record):
        stored = self.store.record_at(table, record["seq"])
        if stored is not None and stored["hash"] == record["hash"] and stored == record:
            self.store.count_duplicate(table)
            return DUPLICATE, None
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
        return identity_failures(meters) + ledger_failures(self._ledger(table), meters)[1]

    def _ledger(self, table):
        if table not in self.ledgers:
            records = self.store.records(table)
            walked = ledger.Ledger(bool(records) and records[0]["seq"] == 1, chart=False)
            self.ledgers[table] = walked.walk(records)
        return self.ledgers[table]

    def _status(self, table, message):
        status = message.get("status")
        if status not in ("online", "offline"):
            return REFUSED, "a status that is neither online nor offline"
        values = {"status": status, "status_at": time.time()}
        if isinstance(message.get("board"), dict):
            values["board_status"] = json.dumps(message["board"], sort_keys=True)
        self.store.set_table(self.casino, table, **values)
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


def _json_object(payload):
    try:
        message = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    return message if isinstance(message, dict) else None
