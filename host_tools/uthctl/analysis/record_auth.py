# A table's record keys on the host, and its records held against them.
# The key file (mode 600, written whole or not at all: private_file) lists
# every key the table has been given, newest last: {"table": "3", "keys":
# [{"key_id": ..., "key": 64 hex digits, "made": Unix time}]}; a key the
# board has replaced also carries "replaced_by" (the key id) and
# "replaced_at" (the seq of the board's `key` record that replaced it),
# written by the floor when it stores that record. A record signed with a key
# must be signed with the key in force: the first key the log shows, and
# after each `key` record (the replacement, signed with the key it
# replaces) the key that record names. A replaced key never comes back: a
# record signed with one, or a `key` record naming one, is refused. Records
# from before the board had a key carry no "auth" and are counted as
# unsigned; one without it once a key is in force is a forgery or an altered
# record, and so is a `key` record without it: the board signs its key record
# (with the key it gives, or the key it replaces), and every record after.
import hmac
import json
import os
import secrets
import time
from pathlib import Path

from mystery import recordkey

from ..errors import InputError
from ..private_file import write_private


class KeyFileError(InputError):
    # A table's key file that cannot be read or written.
    pass


def new_key():
    return secrets.token_hex(recordkey.KEY_BYTES)


def add_key(path, table):
    # A new key appended to the table's key file (made if absent); its id.
    path = Path(path)
    keys = read_key_file(path, table)["keys"] if path.exists() else []
    key = new_key()
    keys.append({"key_id": recordkey.key_id(recordkey.parse_key(key)), "key": key,
                 "made": int(time.time())})
    write_private(path, json.dumps({"table": table, "keys": keys}, indent=1) + "\n")
    return keys[-1]["key_id"]


def read_key_file(path, table=None):
    # The file's contents, checked: KeyFileError saying what is wrong.
    path = Path(path)
    try:
        if os.stat(path).st_mode & 0o077:
            raise KeyFileError("key file %s can be read by others: chmod 600 it" % path)
        content = json.loads(path.read_text())
    except KeyFileError:  # a ValueError, which the JSON's check below would rename
        raise
    except OSError as error:
        raise KeyFileError("key file %s: %s" % (path, error.strerror or error)) from None
    except ValueError:
        raise KeyFileError("key file %s is not JSON" % path) from None
    if not isinstance(content, dict) or not isinstance(content.get("keys"), list):
        raise KeyFileError("key file %s holds no \"keys\" list" % path)
    if table is not None and content.get("table") != table:
        raise KeyFileError("key file %s is table %r's, not table %r's"
                           % (path, content.get("table"), table))
    for entry in content["keys"]:
        try:
            key = recordkey.parse_key(entry["key"])
        except (KeyError, TypeError, ValueError):
            raise KeyFileError("key file %s: a key that is not 64 hex digits" % path) from None
        if entry.get("key_id") != recordkey.key_id(key):
            raise KeyFileError("key file %s: key id %r is not its key's"
                               % (path, entry.get("key_id")))
        if not isinstance(entry.get("replaced_by", ""), str):
            raise KeyFileError("key file %s: key %s's \"replaced_by\" is not a key id"
                               % (path, entry["key_id"]))
    return content


def replaced_keys(path, table=None):
    # The ids of the keys the file marks replaced.
    return {entry["key_id"] for entry in read_key_file(path, table)["keys"]
            if entry.get("replaced_by")}


def mark_replaced(path, table, key_id, by, seq):
    # The board's `key` record `seq` replaced key_id with `by`: marked so, so
    # that no floor takes key_id as the key in force again, a new one too.
    content = read_key_file(path, table)
    for entry in content["keys"]:
        if entry["key_id"] == key_id and not entry.get("replaced_by"):
            entry.update(replaced_by=by, replaced_at=seq)
            write_private(path, json.dumps(content, indent=1) + "\n")
            return True
    return False


def load_keys(path, table=None):
    # {key id: key bytes} of every key in the file.
    return {entry["key_id"]: recordkey.parse_key(entry["key"])
            for entry in read_key_file(path, table)["keys"]}


def newest_key(path, table=None):
    # (key id, key's hex) of the key last added: the one to provision.
    entry = read_key_file(path, table)["keys"][-1]
    return entry["key_id"], entry["key"]


class Checker:
    # Records of one table, in order, against its keys: check() gives each
    # one's problem or None and moves the key in force on. replaced: the
    # key ids never to be in force again (the key file's marks); the log's
    # own `key` records add the keys they replace.
    def __init__(self, keys, in_force=None, replaced=()):
        self.keys = keys
        self.in_force = in_force  # None: no key seen yet in this log
        self.replaced = set(replaced)
        self.signed = 0
        self.unsigned = 0

    def check(self, record):
        auth = record.get("auth")
        seq = record.get("seq")
        if auth is None:
            return self._unsigned(record, seq)
        problem = self._replaced_problem(record, auth) or self._mac_problem(record, auth)
        if problem:
            return problem
        self.signed += 1
        if record.get("ev") == "key":
            self.in_force = record.get("key_id")
            if isinstance(record.get("was"), str):
                self.replaced.add(record["was"])
        elif self.in_force is None:
            self.in_force = recordkey.split_auth(auth)[0]
        return None

    def _unsigned(self, record, seq):
        if self.in_force is not None:
            return ("record %r carries no authenticator though key %s is in force"
                    % (seq, self.in_force))
        if record.get("ev") == "key":
            # The board signs its key record and every record after it: from
            # here on a record without "auth" had it taken off, or is not the board's.
            self.in_force = str(record.get("key_id"))
            return ("record %r, the board's key record (key %s), carries no authenticator: "
                    "the board signs it and every record after it; its authenticators were "
                    "taken off, or it is not the board's" % (seq, self.in_force))
        self.unsigned += 1
        return None

    def _replaced_problem(self, record, auth):
        seq = record.get("seq")
        try:
            kid = recordkey.split_auth(auth)[0]
        except ValueError:
            return None  # _mac_problem names it
        if kid in self.replaced:
            return ("record %r is signed with key %s, which was replaced: a replaced key is "
                    "never the key in force again" % (seq, kid))
        named = record.get("key_id")
        if record.get("ev") == "key" and named in self.replaced:
            return ("record %r puts key %s in force, which was replaced: a replaced key is "
                    "never the key in force again" % (seq, named))
        return None

    def _mac_problem(self, record, auth):
        seq = record.get("seq")
        try:
            kid, mac = recordkey.split_auth(auth)
        except ValueError as error:
            return "record %r: %s" % (seq, error)
        expected_kid = self.in_force
        if expected_kid is None and record.get("ev") == "key":
            # A replacement is signed with the key it replaces; the first
            # key, replacing none, signs its own record.
            expected_kid = record.get("was") or record.get("key_id")
        if expected_kid is not None and kid != expected_kid:
            return "record %r is signed with key %s where key %s is in force" % (
                seq, kid, expected_kid)
        key = self.keys.get(kid)
        if key is None:
            return "record %r is signed with key %s, which the key file does not hold" % (
                seq, kid)
        expected = recordkey.record_auth(key, kid, str(record.get("hash")))
        if not hmac.compare_digest(expected, auth):
            return "record %r's authenticator does not match its key: forged or altered" % seq
        return None


def check_records(records, keys):
    # {"signed", "unsigned", "key_id" in force at the end, "problems": [text]}.
    checker = Checker(keys)
    problems = [problem for problem in map(checker.check, records) if problem]
    return {"signed": checker.signed, "unsigned": checker.unsigned,
            "key_id": checker.in_force, "problems": problems}


def head_matches(key, answer, nonce):
    # Whether a board's `head` answer is its own, for this nonce: its head
    # and its `dropped` (where the log it keeps starts) both.
    dropped = answer.get("dropped")
    if type(dropped) is not int or dropped < 0:
        return False
    try:
        expected = recordkey.head_auth(key, answer["seq"], answer["hash"], nonce, dropped)
    except (KeyError, TypeError):
        return False
    return answer.get("nonce") == nonce and isinstance(answer.get("auth"), str) and \
        hmac.compare_digest(expected, answer["auth"])
