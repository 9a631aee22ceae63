# Reading an event-log export for `uthctl mystery verify`: JSON lines, either
# bare records (a store's segments, `mystery simulate --log`) or the host
# link's `log` replies as they came over the serial port,
#   {"reply": "log", "record": {...}}  one a record, then
#   {"ok": true, "reply": "log", "count": N}  closing one export.
# Every record is checked for the fields its kind needs before anything is
# hashed or compared, so a malformed line is refused by its line number
# (ValueError) rather than failing somewhere inside the check.
import json

from ..errors import InputError
from .settled import FIELDS as SETTLED_FIELDS

_HEX = frozenset("0123456789abcdef")


def _hash(value):
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX


def _number(value):
    return type(value) is int  # not a bool, not a float


def _record_number(value):
    return _number(value) and value >= 1


def _text(value):
    return isinstance(value, str)


# The fields every record carries (the chain's), then those a kind needs for
# its own check (log_verify.verify_log): field -> (test, what it must be).
# A kind not listed (the rounds, validations, payments, or a newer
# firmware's) is held by its chain alone.
RECORD_FIELDS = {
    "seq": (_record_number, "a record number from 1"),
    "prev": (_hash, "the hash of the record before, 64 hex digits"),
    "hash": (_hash, "the record's hash, 64 hex digits"),
    "ev": (_text, "the event's name"),
}
KIND_FIELDS = {
    "reset": {
        "cycle": (_number, "the cycle's number"),
        "config": (_text, "the configuration's name"),
        "commitment": (_hash, "the commitment, 64 hex digits"),
    },
    "redraw": {
        "cycle": (_number, "the cycle's number"),
        "hit_value": (_number, "the revealed hit value in micro-dollars"),
        "salt": (_text, "the revealed salt"),
        "revealed": (_hash, "the commitment the revealed value opens, 64 hex digits"),
        "commitment": (_hash, "the new value's commitment, 64 hex digits"),
    },
    "hit": {
        "cycle": (_number, "the cycle's number"),
        "hit_value": (_number, "the revealed hit value in micro-dollars"),
        "salt": (_text, "the revealed salt"),
        "commitment": (_hash, "the cycle's commitment, 64 hex digits"),
    },
    "settled": SETTLED_FIELDS,
}


def shape_problem(record):
    # What the record lacks, or None.
    if not isinstance(record, dict):
        return "not a record (a JSON object)"
    fields = dict(RECORD_FIELDS)
    kind = record.get("ev")  # any JSON: a list or an object is no dict key
    fields.update(KIND_FIELDS.get(kind, {}) if isinstance(kind, str) else {})
    for name, (test, meaning) in fields.items():
        if name not in record:
            return "no %r (%s)" % (name, meaning)
        if not test(record[name]):
            return "%r must be %s, not %s" % (name, meaning, json.dumps(record[name]))
    return None


class _Export:
    # The host link's replies as they come: records counted until the reply
    # that closes the export says how many there were.
    def __init__(self):
        self.records = 0  # since the last closing reply
        self.open_at = None  # the line of the first record not yet closed

    def reply(self, message, number):
        # The record a reply carries, or None for the closing reply.
        if message.get("reply") == "log" and "record" in message:
            self.records += 1
            self.open_at = self.open_at or number
            return message["record"]
        if message.get("ok") is True and message.get("reply") == "log":
            count = message.get("count")
            if count != self.records:
                raise InputError("log line %d: the board's reply counts %s records, the "
                                 "export holds %d before it" % (number, count, self.records))
            self.records, self.open_at = 0, None
            return None
        if message.get("ok") is False:
            raise InputError("log line %d: the board refused the export: %s"
                             % (number, message.get("error")))
        raise InputError("log line %d: a %r reply, not a log record or the log's reply"
                         % (number, message.get("reply")))

    def close(self):
        if self.open_at is not None:
            raise InputError("log line %d on: the board's replies end without the reply that "
                             "closes the export ({\"ok\": true, \"reply\": \"log\", ...}): it "
                             "was cut short" % self.open_at)


def read_log(lines):
    # The records of an export, in order; ValueError naming the first bad line.
    records = []
    export = _Export()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            raise InputError("log line %d is not JSON" % number) from None
        if not isinstance(message, dict):
            raise InputError("log line %d is not a record" % number)
        record = export.reply(message, number) if _is_reply(message) else message
        if record is None:
            continue
        problem = shape_problem(record)
        if problem:
            raise InputError("log line %d is not a log record: %s" % (number, problem))
        records.append(record)
    export.close()
    return records


def _is_reply(message):
    return "reply" in message or "ok" in message
