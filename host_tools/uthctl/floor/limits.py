# What the floor reads of a message before it believes any of it. A
# payload is bounded in size and in nesting before json.loads sees it (a
# deep one ends the parser in a RecursionError), and must be UTF-8 JSON
# with finite numbers (NaN is no JSON a browser reads, and the page sends
# what a table sent). Every value bound for a column is checked against the
# column first (schema.py): PostgreSQL refuses NUL in text, a varchar past
# its width and an integer past 64 bits, SQLite the last, and a refusal by
# the database would come after the floor had decided to store.
import json
import math
import re

from . import schema

MAX_PAYLOAD = 64 * 1024  # bytes; a record or a status is a few hundred
MAX_DEPTH = 32  # arrays and objects open at once; a board's deepest is 4
BIGINT_MAX = 2**63 - 1  # BigInteger: signed 64 bits on both databases
EV_WIDTH = schema.records.c.ev.type.length

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


class Unreadable(ValueError):
    pass


def read_message(payload):
    # The payload's JSON object; Unreadable saying why it is not one.
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "surrogatepass")
    if len(payload) > MAX_PAYLOAD:
        raise Unreadable("%d bytes, past the floor's %d" % (len(payload), MAX_PAYLOAD))
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable("not UTF-8") from None
    depth = nesting(text)
    if depth > MAX_DEPTH:
        raise Unreadable("nested %d deep, past the floor's %d" % (depth, MAX_DEPTH))
    try:
        message = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except ValueError as error:
        raise Unreadable("not JSON (%s)" % str(error)[:80]) from None
    if not isinstance(message, dict):
        raise Unreadable("JSON, but not an object")
    return message


def nesting(text):
    # The most arrays and objects open at once, strings left out.
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _no_constant(name):
    raise ValueError("%s is no JSON number" % name)


def _finite(text):
    number = float(text)
    if not math.isfinite(number):
        raise ValueError("%s is past a float's range" % text[:20])
    return number


def text_problem(value, width, what):
    # Why a string cannot go into a column of that width, or None.
    if not isinstance(value, str):
        return "%s must be text" % what
    if len(value) > width:
        return "%s is %d characters, past its column's %d" % (what, len(value), width)
    if "\x00" in value:
        return "%s holds a NUL character" % what
    if not encodable(value):
        return "%s holds a lone surrogate, which is no UTF-8" % what
    return None


def record_problem(record):
    # What in a record (its shape checked already) no column can hold, or None.
    if record["seq"] > BIGINT_MAX:
        return "'seq' %d is past a 64-bit integer" % record["seq"]
    if not encodable(json.dumps(record, ensure_ascii=False)):
        # No board's: MicroPython's strings are UTF-8 and cannot hold one,
        # and the chain's earlier text (UTF-8) cannot be made of it.
        return "a string holds a lone surrogate, which is no UTF-8"
    return text_problem(record["ev"], EV_WIDTH, "'ev'")


def encodable(text):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def storable(text):
    # Free text (a refused payload, a reason, an alert) as both databases take
    # it: NUL written as \x00, and anything that is no UTF-8 replaced.
    text = str(text).replace("\x00", "\\x00")
    return text if encodable(text) else text.encode("utf-8", "replace").decode("utf-8")
