# Unsigned records of a table whose key file holds a usable key, held (not
# stored) until the board's own signature covers them: a later record
# signed with the table's key, whose prev hash, followed back record by
# record through the held ones, reaches the floor's head (or record 1, or
# the board's oldest kept record by its signed head). Each held record's
# hash is its own (chain.verify), so the path such a signature reaches is
# the board's chain and no other; anything held beside it is not the
# board's (docs/floor-design.md, "Unsigned records of a keyed table").
# Only the links are held (seq and prev by hash), not the records: once
# vouched for, the records are asked of the table again and stored as they
# come, each against the hash its board's chain holds at its seq. A table's
# held links are bounded: its account can fill them, and then they are
# dropped and the table asked again (a delay, which the account can cause
# anyway by holding its records back; never a record refused).

MAX_HELD = 20_000  # links a table may have held at once


class Held:
    def __init__(self):
        self.links = {}  # table -> {hash: (seq, prev)} of its held unsigned records
        self.at = {}  # table -> {seq: [hash]}: its held links by seq
        self.vouched = {}  # table -> {seq: hash} its board's signed chain covers

    def hold(self, table, record):
        # Whether the record's link is held; False when the table's were full
        # (then all dropped: the caller asks the table again).
        links = self.links.setdefault(table, {})
        if record["hash"] in links:
            return True
        if len(links) >= MAX_HELD:
            self._drop(table)
            return False
        links[record["hash"]] = (record["seq"], record["prev"])
        self.at.setdefault(table, {}).setdefault(record["seq"], []).append(record["hash"])
        return True

    def _drop(self, table):
        self.links.pop(table, None)
        self.at.pop(table, None)

    def holds(self, table, digest):
        return digest in self.links.get(table, {})

    def vouched_hash(self, table, seq):
        # The hash the board's signed chain holds at seq, if known.
        return self.vouched.get(table, {}).get(seq)

    def anchor(self, table, seq, prev, first, first_prev):
        # A record `seq` signed by the board, whose prev is `prev`: the held
        # path from record `first` (whose prev must be first_prev, when it is
        # known) to record seq - 1, vouched for. Returns the held links not
        # on it, [(seq, hash)], now known not to be the board's; None when no
        # held path reaches `first`.
        links = self.links.get(table, {})
        path, digest, at = {}, prev, seq - 1
        while at >= first:
            link = links.get(digest)
            if link is None or link[0] != at:
                return None
            path[at] = digest
            digest, at = link[1], at - 1
        if not path or (first_prev is not None and digest != first_prev):
            return None
        self._drop(table)
        self.vouched[table] = path
        return sorted((s, h) for h, (s, _) in links.items() if path.get(s) != h)

    def settle(self, table, head_seq, in_force):
        # After the board's record head_seq, the floor's next, is stored: the
        # held links now known not to be the board's, dropped and returned
        # [(seq, hash)]: those at head_seq (a link is held only past the
        # floor's head, so none is held below it), and all of them once a key
        # is in force (the board signs every record after its key). A
        # dictionary look-up a record, however many are held.
        self.vouched.get(table, {}).pop(head_seq, None)
        links = self.links.get(table)
        if not links:
            return []
        if in_force:
            gone = sorted((s, h) for h, (s, _) in links.items())
            self._drop(table)
            return gone
        gone = [(head_seq, h) for h in self.at[table].pop(head_seq, [])]
        for _, digest in gone:
            del links[digest]
        return gone
