# The floor's word to a table's board that it has stored the board's log up
# to a record, so the board may let that record go (docs/host-link.md,
# "Collected"): {"cmd": "collected", "seq": N, "auth": HMAC}, the HMAC over
# (the key id, N, record N's hash) with the table's record key, which the
# floor holds in the table's key file and the table's host never does. The
# bridge passes it to its board, which checks it with its own key: a host
# cannot confirm a record the floor did not store. Sent as a request on the
# table's command topic once the record's batch is committed (the service
# publishes requests after the commit; a batch rolled back takes its
# requests back), every CONFIRM_EVERY records, and at once for the board's
# `log_warning`, which also raises a `log` alert: a board whose log fills
# while the floor stores its records, or that no key lets the floor confirm,
# must be collected by hand (uthctl log export --collected, key held).
# The same way, for a board's `start` record stamped "clock": "unset", the
# floor's own clock (UTC) as a `clock` set signed over that start record: the
# board takes it only at that power-up and while its clock is unset
# (docs/host-link.md, "The clock"), so the table's host, which holds no key,
# never sets a board's clock.
import time

from mystery.clock_signed import clock_auth
from mystery.recordkey import collected_auth

# Records between two confirmations: one flash write of the board's mark per
# segment of records at most (its flash wear: docs/testing.md), and never
# more than this many uncollected on a board whose floor keeps up.
CONFIRM_EVERY = 32
WARNING = "log_warning"


class Confirmations:
    def __init__(self, keys):
        self.keys = keys  # the floor's TableKeys; None: no key, no confirmation
        self.sent = {}  # table -> the last record this run confirmed

    def after(self, table, record, in_force):
        # The request confirming `record`, just stored under the key in
        # force `in_force` (None: unsigned, which only a key turn confirms),
        # or None when it is not yet due.
        if self.keys is None or in_force is None:
            return None
        seq = record["seq"]
        due = seq - self.sent.get(table, 0) >= CONFIRM_EVERY or record["ev"] == WARNING
        if not due:
            return None
        key = self.keys.usable(table, in_force).get(in_force)
        if key is None:
            return None
        self.sent[table] = seq
        return {"cmd": "collected", "seq": seq,
                "auth": collected_auth(key, in_force, seq, record["hash"])}


def clock_request(keys, table, record, in_force, now=time.time):
    # The signed clock set for the board whose `record` was just stored under
    # key `in_force`, or None: not a start with its clock unset, unsigned, or
    # no key the floor holds. A stale start's (a backlog caught up) is sent
    # all the same: its board refuses it, and nothing else depends on it.
    if keys is None or in_force is None or record["ev"] != "start" \
            or record.get("clock") != "unset":
        return None
    key = keys.usable(table, in_force).get(in_force)
    if key is None:
        return None
    when = list(time.gmtime(now())[:6])
    return {"cmd": "clock", "set": when,
            "auth": clock_auth(key, in_force, record["seq"], record["hash"], when)}


def warning_text(record):
    # The `log` alert's words for a board's log_warning record.
    return ("the board's log holds %s of the %s records it keeps uncollected (record %d): "
            "check the table's bridge, or collect it by hand (uthctl log export --collected, "
            "the key switch held)" % (record.get("uncollected"), record.get("capacity"),
                                      record["seq"]))
