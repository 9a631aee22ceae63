# The event log's tamper evidence: every record carries its sequence number
# and the SHA-256 of the record before it, over a canonical text that both
# MicroPython and CPython produce byte for byte (docs/host-link.md, "The
# hash's text"): sorted keys, no spaces, ASCII only, every string written by
# this module's rule rather than by either runtime's json.dumps, which write
# non-ASCII, DEL, backspace and form feed differently.
import binascii
import hashlib
import json
from collections import OrderedDict

from .chain_text import UNHASHED, no_escapes

GENESIS = "0" * 64
_COMPACT = (",", ":")
_SCALARS = (int, str, bool, float, type(None))


def canonical(record):
    # Every field but the record's own hash and authenticator, keys sorted, copied into an
    # OrderedDict that json.dumps writes in one call: a call per key and value
    # would be most of a round's hashing time on a Pico (docs/benchmarks.md,
    # "The round's time"). A record with a dict or a tuple in a value takes
    # the field by field way, whose text is the definition.
    ordered = OrderedDict()
    lists = []
    for key in sorted(record):
        if key not in UNHASHED:
            value = record[key]
            if type(value) is list:
                lists.append(value)
            elif type(value) not in _SCALARS:
                return _by_fields(record)
            if type(key) is not str:
                return _by_fields(record)
            ordered[key] = value
    if lists and not _plain(lists):
        return _by_fields(record)
    text = json.dumps(ordered, separators=_COMPACT)
    return text if no_escapes(text) else _by_fields(record)


def _plain(lists):
    # Whether json.dumps writes these lists as chain_fields does: no dict in
    # them (its keys need sorting and its "hash" leaving out) and no tuple
    # (json.dumps puts spaces in one). One repr of them all shows either as
    # "{" or "(" and makes one new string, not one a list (new strings are
    # slow on the board: docs/benchmarks.md, "The round's time"); a string
    # holding either character only sends the record the field by field way.
    text = repr(lists)
    return "{" not in text and "(" not in text


def _by_fields(record, earlier=False):
    # The field by field way, in a module of its own: loaded only for the
    # rare record that needs it, not kept in every board's heap.
    from . import chain_fields

    return chain_fields.by_fields(record, earlier)


def _digest(prev, text):
    digest = hashlib.sha256(prev.encode())
    digest.update(text.encode())
    return binascii.hexlify(digest.digest()).decode()


def record_hash(record):
    # SHA-256 of prev then the canonical text, fed apart rather than joined.
    return _digest(record["prev"], canonical(record))


def earlier_hash(record):
    # The hash by the earlier rule, over the record's UTF-8 text
    # (docs/host-link.md, "The hash's text"): the same as record_hash's for
    # every record whose strings hold no DEL and nothing past ASCII.
    return _digest(record["prev"], _by_fields(record, True))


def link(event, seq, prev_hash):
    # The event as the next log record after (seq - 1, prev_hash).
    record = dict(event)
    record["seq"] = seq
    record["prev"] = prev_hash
    record["hash"] = record_hash(record)
    return record


def verify(records, first_prev=None):
    # Checks sequence and hashes; returns (ok, message). The first record's
    # predecessor may have been dropped, so its prev is trusted unless given.
    # A record may hold its hash by the earlier rule, so that a log kept on a
    # board across an update still verifies; the message says how many do.
    expected_prev = first_prev
    expected_seq = None
    earlier = 0
    for record in records:
        if expected_seq is not None and record.get("seq") != expected_seq:
            return False, "sequence breaks at %r" % (record.get("seq"),)
        if expected_prev is not None and record.get("prev") != expected_prev:
            return False, "record %r does not follow its predecessor" % (record.get("seq"),)
        if record_hash(record) != record.get("hash"):
            if earlier_hash(record) != record.get("hash"):
                return False, "record %r was altered" % (record.get("seq"),)
            earlier += 1
        expected_seq = record["seq"] + 1
        expected_prev = record["hash"]
    message = "%d records chain" % len(records)
    if earlier:
        message += (" (%d hashed by the earlier rule, before the canonical text was ASCII)"
                    % earlier)
    return True, message
