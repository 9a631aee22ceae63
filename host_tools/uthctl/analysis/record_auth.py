# A table's record keys on the host, and its records held against them.
# The key file (mode 600, written whole or not at all: private_file) lists
# every key the table has been given, newest last: {"table": "3", "keys":
# [{"key_id": ..., "key": 64 hex digits, "made": Unix time}]}. A record signed with a key
# must be signed with the key in force: the first key the log shows, and
# after each `key` record (the replacement, signed with the key it
# replaces) the key that record names. Records from before the board had a
# key carry no "auth" and are counted as unsigned; one without it once a
# key is in force is a forgery or an altered record.
import hmac
import json
import os
import secrets
import time
from pathlib import Path

from mystery import recordkey

from ..private_file import write_private


class KeyFileError(ValueError):
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
    return content


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
    # one's problem or None and moves the key in force on.
    def __init__(self, keys, in_force=None):
        self.keys = keys
        self.in_force = in_force  # None: no key seen yet in this log
        self.signed = 0
        self.unsigned = 0

    def check(self, record):
        auth = record.get("auth")
        seq = record.get("seq")
        if auth is None:
            if self.in_force is not None:
                return ("record %r carries no authenticator though key %s is in force"
                        % (seq, self.in_force))
            self.unsigned += 1
            return None
        problem = self._mac_problem(record, auth)
        if problem:
            return problem
        self.signed += 1
        if record.get("ev") == "key":
            self.in_force = record.get("key_id")
        elif self.in_force is None:
            self.in_force = recordkey.split_auth(auth)[0]
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
    # Whether a board's `head` answer is its own, for this nonce.
    try:
        expected = recordkey.head_auth(key, answer["seq"], answer["hash"], nonce)
    except (KeyError, TypeError):
        return False
    return answer.get("nonce") == nonce and isinstance(answer.get("auth"), str) and \
        hmac.compare_digest(expected, answer["auth"])
