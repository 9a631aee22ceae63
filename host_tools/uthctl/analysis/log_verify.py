# The check of a Mystery log (as logread.read_log gives it): its hash chain,
# where it starts and ends, and each revealed hit value against the
# commitment its cycle published.
from mystery import chain, configs, hitvalue

from . import settled


class LogCheck:
    # What the check has met so far; fed record by record (check_record), so
    # a floor keeps it running beside a table's log instead of walking the log.
    def __init__(self):
        self.resets = {}  # cycle -> reset record
        self.published = {}  # cycle -> (its commitment in force, "reset" or "redraw")
        self.hits = 0
        self.redraws = 0
        self.anchored = 0  # hits checked against their cycle's reset record
        self.settled = 0  # settlement records settled again and found as recorded

    def reset(self, record):
        cycle = record.get("cycle")
        if cycle in self.resets:
            return "record %r resets cycle %r a second time" % (record.get("seq"), cycle)
        self.resets[cycle] = record
        self.published[cycle] = (record.get("commitment"), "reset")
        return None

    def redraw(self, record):
        # A cycle whose value a failed commit exposed: the old value and salt
        # revealed against the commitment in force, a new one published.
        seq, cycle = record.get("seq"), record.get("cycle")
        value, salt = record.get("hit_value"), record.get("salt")
        if type(value) is not int or not isinstance(salt, str) or not isinstance(
                record.get("commitment"), str):
            return "record %r: redraw without a revealed hit value, salt and new commitment" % (
                seq,)
        self.redraws += 1
        # With its reset trimmed from the log, only the redraw's own copy is left.
        published = self.published.get(cycle, (record.get("revealed"),))[0]
        if hitvalue.commitment(value, salt) != published or record.get("revealed") != published:
            return ("record %r: the hit value and salt a redraw of cycle %r reveals do not match "
                    "the commitment in force" % (seq, cycle))
        self.published[cycle] = (record["commitment"], "redraw")
        reset = self.resets.get(cycle)
        return None if reset is None else _hit_in_range(record, reset)

    def hit(self, record):
        seq, cycle = record.get("seq"), record.get("cycle")
        value, salt = record.get("hit_value"), record.get("salt")
        if type(value) is not int or not isinstance(salt, str):
            return "record %r: hit without a revealed hit value and salt" % (seq,)
        self.hits += 1
        reset = self.resets.get(cycle)
        # A reset dropped when the log was trimmed leaves only the hit's own
        # copy (or a later redraw's commitment).
        published, where = self.published.get(cycle, (record.get("commitment"), None))
        if hitvalue.commitment(value, salt) != published:
            return ("record %r: revealed hit value and salt of cycle %r do not match the "
                    "commitment published at its %s%s"
                    % (seq, cycle, where or "reset",
                       "" if where else " (as copied in the hit record)"))
        if reset is None:
            return None
        self.anchored += 1
        if record.get("commitment") != published:
            return "record %r: hit commitment differs from its %s's" % (seq, where)
        return _hit_in_range(record, reset)


    def settlement(self, record):
        # The round in the record, settled again here, gives its recorded results.
        self.settled += 1
        return settled.problem(record)


# The kinds of record checked beyond the chain, each by its LogCheck method
# (the fields each needs are in logread.KIND_FIELDS).
_KIND_CHECKS = {"reset": LogCheck.reset, "redraw": LogCheck.redraw, "hit": LogCheck.hit,
                "settled": LogCheck.settlement}


def check_record(check, record):
    # The record's own check beyond the chain, against what `check` has met
    # before it: the problem, or None.
    checker = _KIND_CHECKS.get(record["ev"])
    return checker(check, record) if checker else None


def start_problem(first, dropped=None):
    # Why a log whose first record is `first` cannot be checked from there
    # without an anchor (verify_log with no after or from_seq; `dropped`, the
    # records the board says it dropped), or None.
    return _start([first], None, dropped, None)[1]


def _hit_in_range(record, reset):
    try:
        config = configs.get(reset.get("config"))
    except ValueError:
        return "record %r: unknown configuration %r" % (reset.get("seq"), reset.get("config"))
    if not config.minimum <= record["hit_value"] < config.maximum:
        return "record %r: hit value outside [minimum, maximum - 1 cent] of %s" % (
            record.get("seq"), config.name)
    return None


def _anchor_problem(records, after, head, dropped=None, from_seq=None):
    # Where the records must start and end, when the caller knows: `after`,
    # the (seq, hash) of the last record of an earlier export; `head`, the
    # meter's log head as `uthctl meters` reads it; `dropped`, the records the
    # board's bounded log has removed (meters' log_dropped); `from_seq`, the
    # record the caller says a part of the log starts at. A log from record 1
    # starts at the genesis hash; any other start must be one of these, or
    # records cut from its front would go unseen. Returns (problem or None,
    # start anchor, end anchor).
    start, problem = _start(records, after, dropped, from_seq)
    if problem:
        return problem, None, None
    end = None
    if head is not None:
        last = records[-1] if records else None
        last_seq = last.get("seq") if last else (after[0] if after else 0)
        last_hash = last.get("hash") if last else (after[1] if after else chain.GENESIS)
        if last_seq is not None and last_seq > head[0]:
            return ("the log runs past the meter's head (record %d) to record %d: read the "
                    "meters after exporting the log" % (head[0], last_seq)), None, None
        if last_seq != head[0]:
            return ("the log ends at record %s, the meter's head is record %d: records are "
                    "missing from its end" % (last_seq, head[0])), None, None
        if last_hash != head[1]:
            return ("record %d is not the meter's head (its hash differs)" % head[0]), None, None
        end = "the meter's head"
    return None, start, end


def _start(records, after, dropped, from_seq):
    # (start anchor, problem): where the log's first record is held.
    first_seq = records[0].get("seq")
    if after is not None:
        if first_seq != after[0] + 1 or records[0].get("prev") != after[1]:
            return None, ("record %r does not follow record %d of the earlier export"
                          % (first_seq, after[0]))
        return "after record %d" % after[0], None
    if from_seq is not None:
        if first_seq != from_seq:
            return None, "the log starts at record %r, not at record %d (--from)" % (
                first_seq, from_seq)
        return "record %d, as asked (--from): a part of the log" % from_seq, None
    if first_seq == 1:
        if records[0].get("prev") != chain.GENESIS:
            return None, "record 1 does not start from the genesis hash"
        return "genesis", None
    if dropped is not None and first_seq == dropped + 1:
        return "the board's oldest kept record (records 1-%d dropped by its bounded log)" % (
            dropped), None
    return None, _missing_front(first_seq, dropped)


def _missing_front(first_seq, dropped):
    if dropped is not None and first_seq > dropped + 1:
        return ("the log starts at record %d, but the board still keeps the records from %d "
                "(it has dropped %d): records %d-%d are missing from the log's front"
                % (first_seq, dropped + 1, dropped, dropped + 1, first_seq - 1))
    missing = "records 1-%d are missing from the log's front" % (first_seq - 1)
    if dropped is not None:
        missing += (", and the board, which has dropped records 1-%d, cannot show they were "
                    "dropped before this log was exported" % dropped)
    return ("the log starts at record %d: %s; give the earlier export it joins, or --from "
            "%d to check it as a part" % (first_seq, missing, first_seq))


def verify_log(records, after=None, head=None, dropped=None, from_seq=None):
    # The chain first (altered, removed or reordered records), where it starts
    # and ends when known, then each revealed hit value against its cycle's
    # commitment. The records are as logread.read_log gives them: each has
    # the fields its kind is checked on.
    result = {"records": len(records), "ok": False}
    if not records:
        result["problem"] = "the log holds no records"
        return result
    result.update(first_seq=records[0]["seq"], last_seq=records[-1]["seq"])
    ok, message = chain.verify(records)
    if not ok:
        result["problem"] = message
        return result
    problem, start, end = _anchor_problem(records, after, head, dropped, from_seq)
    if problem:
        result["problem"] = problem
        return result
    check = LogCheck()
    for record in records:
        problem = check_record(check, record)
        if problem:
            result["problem"] = problem
            return result
    result.update(ok=True, chain=message, hits=check.hits, redraws=check.redraws,
                  part=after is not None or from_seq is not None,
                  settled=check.settled,
                  anchored=check.anchored,
                  unanchored=check.hits - check.anchored, starts_at=start, ends_at=end)
    return result


def format_verify(result):
    if not result["ok"]:
        return "log check FAILED: " + result["problem"]
    text = "ok%s: %s; revealed hit values: %d, each matching its cycle's commitment" % (
        " for a part of the log, from record %d" % result["first_seq"] if result["part"] else "",
        result["chain"], result["hits"])
    if result["redraws"]:
        text += "; values redrawn after a failed commit exposed them: %d, each revealed " \
                "as committed" % result["redraws"]
    text += "; starts at %s" % result["starts_at"]
    text += "; ends at %s" % (result["ends_at"] or "a record not checked against the meter's "
                              "head (--head): records may be missing after it")
    if result.get("settled"):
        text += "; rounds settled on the board: %d, each settled again here as recorded" % (
            result["settled"])
    if result["unanchored"]:
        text += (" (%d whose reset record is no longer in the log: checked against the "
                 "commitment copied in the hit record)" % result["unanchored"])
    return text


def head_of(meters):
    # The meter's log head as (seq, hash); (0, genesis) on a board with no log.
    return meters.get("log_seq", 0), meters.get("log_hash") or chain.GENESIS
