# Where a table's log on the floor starts when the floor meets the table
# past its record 1: only where the board itself says the log it keeps
# starts, in its `head` answer (`dropped`, the records its bounded log
# removed) authenticated by a key the table's key file holds and has not
# marked replaced, over the floor's own fresh nonce (record_auth.head_matches).
# Never the table account's word: the bridge's "first_kept", the meters'
# `log_dropped`, which no key covers (docs/floor-design.md, "Where a table's log starts").
import secrets
import time

from ..analysis import record_auth
from .table_keys import KeyFileError

NONCE_BYTES = 16
ASK_AGAIN_S = 2.0  # the least time between two `head` requests to a table


class LogStarts:
    def __init__(self, keys):
        self.keys = keys  # TableKeys, or None: no table's start can be known
        self.asked = {}  # table -> (nonce, when asked)
        self.starts = {}  # table -> its board's oldest kept record, by its signed head

    def start(self, table):
        return self.starts.get(table)

    def can_ask(self, table):
        # Whether any answer could be authenticated: a key that may be in force.
        try:
            return self.keys is not None and bool(self.keys.usable(table))
        except KeyFileError:
            return False

    def ask(self, table, unkeyed=False):
        # The floor's `head` request to the table, or None: no key to check
        # an answer with (unless unkeyed: an answer with no key can still
        # say the board's record 1 is gone, to be shown, never taken), or one
        # asked within ASK_AGAIN_S.
        last = self.asked.get(table)
        now = time.monotonic()
        if self.keys is None or not (unkeyed or self.can_ask(table)) or (
                last is not None and now - last[1] < ASK_AGAIN_S):
            return None
        nonce = secrets.token_hex(NONCE_BYTES)
        self.asked[table] = (nonce, now)
        return {"cmd": "head", "nonce": nonce}

    def unsigned(self, table, answer):
        # Whether a `head` answer to our nonce carries no authenticator: a
        # board with no record key (or another client on the table's
        # account). Only shown: the nonce stays open for the board's own.
        asked = self.asked.get(table)
        return asked is not None and isinstance(answer, dict) and \
            answer.get("nonce") == asked[0] and answer.get("auth") is None

    def heard(self, table, answer):
        # The oldest kept record a `head` answer vouches for, or None: not
        # an answer to our nonce, or not authenticated by a usable key.
        asked = self.asked.get(table)
        if asked is None or not isinstance(answer, dict) or answer.get("nonce") != asked[0]:
            return None
        try:
            key = self.keys.usable(table, answer.get("key_id")).get(answer.get("key_id"))
        except KeyFileError:
            return None
        if key is None or not record_auth.head_matches(key, answer, asked[0]):
            return None
        del self.asked[table]
        self.starts[table] = answer["dropped"] + 1
        return self.starts[table]
