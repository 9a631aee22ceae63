# A table's record checks kept as running state, so that what a record
# costs the floor does not grow with the table's history. The checks are
# the audit's own: log_verify's check of each cycle's commitment (a hit or
# a redraw against the commitment its cycle published, each settlement
# settled again) and ledger's accounts, both fed one record at a time as it
# joins, with the first problem the log check met (what log_verify would
# report for the whole log). The chain's head is the table's row
# (last_seq, last_hash). The state is written with the record, in its
# transaction: the scalars as JSON in tables.checks, and what each cycle
# published as rows of `cycles`, read back by the cycle's key when a record
# names it. A restarted floor takes the state up where the database holds
# it; a hit or a redraw costs a look-up of its cycle, never a walk of the log.
import hashlib
import json

from mystery import configs

from ..analysis import ledger, log_verify

MISSING = object()
KEY_WIDTH = 64  # a cycle's key: its JSON text, or a digest of a longer one
FACTS = ("reset", "published", "ledger")  # LogCheck.resets, .published, Ledger.commitments
LEDGER_STATE = ("from_genesis", "meter", "seeded", "contributed", "paid", "retained",
                "settings", "hits", "cycle", "round", "pending", "round_before", "problems")
# Kept since the wager meters: a state stored before them reads them as not
# known, until the next round states them.
LEDGER_LATER = {"qualifying_wagers": None, "wagered": None, "wagers_stated": False,
                "wagers_since": None}
CHECK_STATE = ("hits", "redraws", "anchored", "settled")


def cycle_key(cycle):
    text = json.dumps(cycle, sort_keys=True)
    if len(text) <= KEY_WIDTH:
        return text
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:KEY_WIDTH - 7]


class CycleFacts:
    # One fact of each cycle (its reset record, the commitment in force) as
    # the dict LogCheck and Ledger keep it in: read from the database by the
    # cycle's key when first asked, written with the next record.
    def __init__(self, fact, load):
        self.fact = fact
        self.load = load  # load(fact, key) -> (found, value)
        self.known = {}  # key -> value (or MISSING) since the last write
        self.changed = {}  # key -> value, to write with the next record

    def _find(self, cycle):
        key = cycle_key(cycle)
        if key not in self.known:
            found, value = self.load(self.fact, key)
            self.known[key] = value if found else MISSING
        return self.known[key]

    def get(self, cycle, default=None):
        value = self._find(cycle)
        return default if value is MISSING else value

    def __contains__(self, cycle):
        return self._find(cycle) is not MISSING

    def __getitem__(self, cycle):
        value = self._find(cycle)
        if value is MISSING:
            raise KeyError(cycle)
        return value

    def __setitem__(self, cycle, value):
        # Held as it reads back from the database (a tuple as a list), so a
        # resumed floor and one that never stopped see the same values.
        key = cycle_key(cycle)
        value = json.loads(json.dumps(value))
        self.known[key] = self.changed[key] = value

    def rows(self):
        return [(self.fact, key, json.dumps(value, sort_keys=True))
                for key, value in self.changed.items()]

    def written(self):
        self.known, self.changed = {}, {}


def _nothing_stored(_fact, _key):
    return False, None


class Running:
    # fresh: built here from the table's first record (or a walk of its log),
    # so any cycle rows the database holds for the table are not its own.
    # dropped: the records before `first` its board's signed head says it dropped.
    def __init__(self, first, load, fresh=True, dropped=None):
        self.seq = None  # the last record taken
        self.fresh = fresh
        self.problem = log_verify.start_problem(first, dropped)
        self.check = log_verify.LogCheck()
        self.ledger = ledger.Ledger(first["seq"] == 1, chart=False)
        self.facts = [CycleFacts(fact, _nothing_stored if fresh else load) for fact in FACTS]
        self.check.resets, self.check.published, self.ledger.commitments = self.facts

    def take(self, record):
        # The record's checks against the state, the state moved past it. A
        # check that fails on a record (a board's record no check foresaw) is
        # its problem, not the floor's: the record still joins.
        if self.problem is None:
            try:
                self.problem = log_verify.check_record(self.check, record)
            except Exception as error:  # noqa: BLE001 -- said as the log's problem
                self.problem = "record %r: not checkable: %s: %s" % (
                    record.get("seq"), type(error).__name__, error)
        try:
            self.ledger.walk([record])
        except Exception as error:  # noqa: BLE001 -- said as the accounts' problem
            self.ledger.problem(record, "not added up: %s: %s" % (type(error).__name__, error))
        self.seq = record["seq"]

    def rows(self):
        # (fact, cycle key, value) to write with the record.
        return [row for facts in self.facts for row in facts.rows()]

    def written(self, load):
        # The record and its state are in the database: later look-ups read it.
        for facts in self.facts:
            facts.written()
            facts.load = load
        self.fresh = False

    def dumps(self):
        state = {"seq": self.seq, "problem": self.problem,
                 "check": {name: getattr(self.check, name) for name in CHECK_STATE},
                 "ledger": {name: getattr(self.ledger, name)
                            for name in LEDGER_STATE + tuple(LEDGER_LATER)}}
        state["ledger"]["config"] = self.ledger.config.name if self.ledger.config else None
        return json.dumps(state, sort_keys=True)

    @classmethod
    def loads(cls, text, load):
        state = json.loads(text)
        running = cls.__new__(cls)
        running.seq, running.problem, running.fresh = state["seq"], state["problem"], False
        running.check = log_verify.LogCheck()
        for name in CHECK_STATE:
            setattr(running.check, name, state["check"][name])
        sums = state["ledger"]
        running.ledger = ledger.Ledger(sums["from_genesis"], chart=False)
        for name in LEDGER_STATE:
            setattr(running.ledger, name, sums[name])
        for name, unknown in LEDGER_LATER.items():
            setattr(running.ledger, name, sums.get(name, unknown))
        running.ledger.config = configs.get(sums["config"]) if sums["config"] else None
        if sums["round_before"] is not None:
            before, contributions = sums["round_before"]
            running.ledger.round_before = (before, [tuple(pair) for pair in contributions])
        running.facts = [CycleFacts(fact, load) for fact in FACTS]
        running.check.resets, running.check.published, running.ledger.commitments = \
            running.facts
        return running


def walked(records, load):
    # The state from a walk of the table's records (an iterable, oldest
    # first): once, for a table the database holds no state for.
    running = None
    for record in records:
        if running is None:
            running = Running(record, load)
        running.take(record)
    return running


def stored(state, load):
    # The state the database holds with the table's head, or None: none
    # kept yet (a database from before), or not at its head.
    text = state.get("checks")
    if not text or state.get("last_seq") is None:
        return None
    running = Running.loads(text, load)
    return running if running.seq == state["last_seq"] else None
