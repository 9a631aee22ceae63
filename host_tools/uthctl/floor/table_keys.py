# Each table's record keys on the floor: the key file DIR/keys/<table>.json
# that `uthctl floor add-table` wrote (and `rekey` extends), read when the
# floor first meets the table and again when a record names a key id the
# floor does not hold, so a rekey needs no restart. A record is checked by
# record_auth.Checker from the key in force that the table's row holds
# (tables.key_id), which moves only with a stored record: the floor's
# memory and its database cannot disagree about it, across restarts too.
# A key the file marks replaced is never the key in force again, on a table
# new to the floor too: the floor marks it when it stores the board's `key`
# record that replaced it (record_auth.mark_replaced).
from pathlib import Path

from mystery import recordkey

from ..analysis import record_auth

KeyFileError = record_auth.KeyFileError


def key_file(folder, table):
    return Path(folder) / ("%s.json" % table)


class TableKeys:
    def __init__(self, folder):
        self.folder = Path(folder)
        self.held = {}  # table -> {key id: key}, or None: no key file
        self.replaced = {}  # table -> the key ids its file marks replaced

    def check(self, table, record, in_force):
        # (problem or None, the key in force after the record). A table with
        # no key file is unsigned: its records are held by the chain alone.
        # KeyFileError when the file is there but unreadable.
        keys = self._keys(table, _named_key(record))
        if keys is None:
            if in_force is not None:
                return ("key %s is in force on table %s but the floor has no key file %s"
                        % (in_force, table, key_file(self.folder, table))), in_force
            return None, None
        checker = record_auth.Checker(keys, in_force, self.replaced[table])
        return checker.check(record), checker.in_force

    def check_early(self, table, record, in_force):
        # A record held back past a gap: the key in force when it joins is not
        # known yet (a key record may lie in the gap), so any key in the
        # table's file may have signed it; no key at all, once one is in force,
        # none did. (problem or None, the key in force, unchanged).
        keys = self._keys(table, _named_key(record))
        if keys is None or (record.get("auth") is None and in_force is None):
            return None, in_force
        checker = record_auth.Checker(keys, in_force if record.get("auth") is None else None,
                                      self.replaced[table])
        return checker.check(record), in_force

    def has_file(self, table):
        return self._keys(table, None) is not None

    def usable(self, table, named=None):
        # {key id: key} of the keys that may be in force: held, not replaced.
        keys = self._keys(table, named) or {}
        return {kid: key for kid, key in keys.items() if kid not in self.replaced[table]}

    def mark_replaced(self, table, key_id, by, seq, write=True):
        # The board's `key` record `seq`, stored, replaced key_id with `by`.
        # write=False: in memory only, until the record's batch is committed.
        if self._keys(table, None) is None:
            return False
        self.replaced[table].add(key_id)
        if not write:
            return True
        return record_auth.mark_replaced(key_file(self.folder, table), table, key_id, by, seq)

    def forget(self):
        # Every table's keys read again from its file (a batch rolled back).
        self.held, self.replaced = {}, {}

    def _keys(self, table, named):
        if table not in self.held or (named is not None and named not in (self.held[table]
                                                                          or {})):
            self.held[table], self.replaced[table] = self._read(table)
        return self.held[table]

    def _read(self, table):
        path = key_file(self.folder, table)
        if not path.exists():
            return None, set()
        return record_auth.load_keys(path, table), record_auth.replaced_keys(path, table)


def _named_key(record):
    # The key id a record's authenticator names, if it has one of that shape.
    try:
        return recordkey.split_auth(record.get("auth"))[0]
    except ValueError:
        return None
