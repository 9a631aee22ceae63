# What the intake does with a record no key signed, of a table that has
# a key file or none (docs/floor-design.md, "Unsigned records of a keyed table"):
# one of a table whose key file holds a usable key is held (held.py) until
# its board's signature covers it by the chain, then stored as it comes
# again; any held beside the board's signed chain is refused as forged. A
# table with no key file is stored by its chain alone, under an `unsigned`
# alert. A board that cannot say where its log starts, or whose records are
# held because it has no key, is shown under a `held` alert.
import json

from mystery import chain

from ..wire import topics

EARLY, REFUSED = "early", "refused"  # intake.py's outcomes (it imports this module)


class HeldRecords:
    # Part of Intake: self.store, self.keys, self.starts, self.held,
    # self.casino, self.asked, self.ask_log, self.requests, self.told_unsigned.

    def _unvouched(self, table, record, state):
        # An unsigned record of a table whose key file holds a usable key, no
        # key in force yet, that its board's signed chain does not cover (yet).
        return self.keys is not None and record.get("auth") is None and \
            state.get("key_id") is None and \
            self.held.vouched_hash(table, record["seq"]) != record["hash"] and \
            self.starts.can_ask(table)

    def _hold(self, table, record, first):
        # Held, not stored: the account can make such a record as well as the
        # board; only a later record the board signed can say which is its own.
        seq = record["seq"]
        ok, why = chain.verify([record])
        if not ok:
            self.store.raise_alert(table, "refused", "record %d refused: %s" % (seq, why))
            return REFUSED, "record %d breaks the chain: %s" % (seq, why)
        if self.held.vouched_hash(table, seq) is not None:
            return self._forged(table, seq, "it is not record %d of its board's signed chain"
                                % seq)
        if not self.held.hold(table, record):
            self.asked.pop(table, None)
            self.ask_log(table, first)
            return EARLY, "record %d: table %s's held records were too many: asked again" % (
                seq, table)
        if seq > first and not self.held.holds(table, record["prev"]):
            self.ask_log(table, first)
        request = self.starts.ask(table)
        if request is not None:
            self.requests.append((table, request))
        return EARLY, ("record %d carries no authenticator: held until its board's signed "
                       "chain covers it" % seq)

    def _vouch(self, table, record, state, first):
        # A record the board signed, past the head: whether its prev hash,
        # followed back through the held records, reaches the floor's head
        # (or the table's first record). If so they are the board's: asked
        # again, to be stored as they come; every other held one is forged.
        last_seq = state.get("last_seq")
        first_prev = state["last_hash"] if last_seq is not None else (
            chain.GENESIS if first == 1 else None)
        others = self.held.anchor(table, record["seq"], record["prev"], first, first_prev)
        if others is None:
            return False
        self._not_the_boards(table, others)
        self.asked.pop(table, None)
        self.ask_log(table, first)
        return True

    def _not_the_boards(self, table, links):
        # Held unsigned records its board's signed chain shows are not its own.
        for seq, digest in links:
            problem = ("it carries no authenticator and is not in its board's signed chain "
                       "(its hash %s)" % digest)
            self._refuse(topics.topic(self.casino, table, topics.EVENT),
                         "record %d forged: %s" % (seq, problem),
                         json.dumps({"table": table, "held": {"seq": seq, "hash": digest}}))
            self.store.raise_alert(table, "forged", forged_alert(self.casino, table, seq,
                                                                 problem))

    def _held_alert(self, table, answer):
        # Shown, never taken: an answer to the floor's `head` with no key.
        if self.starts.can_ask(table):
            text = ("table %s's records without an authenticator are held, not stored: the "
                    "floor holds a key file for it, but the answer to its head request came "
                    "with no authenticator (a board with no record key: earlier firmware, or "
                    "not provisioned; or another client on the table's account). Provision "
                    "the board (uthctl provision): its key record then vouches for the "
                    "records before it. For a board that cannot take a key, remove its key "
                    "file: its records are then stored by their hash chain alone, shown "
                    "UNSIGNED" % table)
        else:
            dropped = answer.get("dropped")
            if (self.store.table(table) or {}).get("last_seq") is not None or \
                    type(dropped) is not int or dropped < 1:
                return  # its record 1 will come
            text = ("table %s's records are held, not stored: the floor meets it past its "
                    "record 1, its board says (unsigned) that its log dropped records 1-%d, "
                    "and only a head signed with the table's key can say where its log "
                    "starts. Give it a key (uthctl floor add-table writes its key file, "
                    "uthctl provision gives it to the board) and the floor collects it from "
                    "record %d" % (table, dropped, dropped + 1))
        self.store.raise_alert(table, "held", text)

    def _unsigned(self, table):
        if self.keys is None or table in self.told_unsigned:
            return
        self.told_unsigned.add(table)
        if self.starts.can_ask(table):  # stored only as its board's signed chain covers it
            self.store.raise_alert(table, "unsigned", "table %s's records before its board's "
                                   "key carry no authenticator (made before the board was "
                                   "provisioned); its board's signed chain covers them, so "
                                   "they are its own" % table)
            return
        why = ("its records carry no authenticator (a board with no record key whose key "
               "file holds no key that may be in force)")
        if not self.keys.has_file(table):
            why = "the floor holds no key file for it (uthctl floor add-table writes one)"
        self.store.raise_alert(table, "unsigned", "table %s is unsigned: %s; its records are "
                               "held by their hash chain alone, which anyone with the table's "
                               "account can extend" % (table, why))


def forged_alert(casino, table, seq, problem):
    # The account that may publish on the table's topic (the broker binds a
    # client id to its user name) is the one that sent it, or whoever holds it.
    return ("record %d on table %s refused as forged: %s; it came on %s, where only client "
            "%s (table %s's account) may publish" % (
                seq, table, problem, topics.topic(casino, table, topics.EVENT),
                topics.user_of(table), table))
