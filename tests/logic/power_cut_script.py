# The power-cut proof of design.md ("Nothing is lost"). test_power_cut.py runs
# this file as a process of its own with the board's heap:
#   MICROPYPATH=firmware:tests/logic micropython -X heapsize=$UTH_HEAPSIZE \
#       tests/logic/power_cut_script.py BOARD [MODE HEAP]
# BOARD: pico or esp32 (the mount); MODE: day (the default), settled or
# settled-full (the day with rounds settled on the board, below).
# The meter store on littlefs (os.VfsLfs2) over a RAM flash device
# (ramflash.py); power cut at every flash operation of the scripted table day
# below, in each of three ways (the operation lost, half done, done); then a
# reboot on the surviving bytes: the meters must be as before or as after the
# operation in flight and add up, the cycle's hit value must be the one it
# drew, the log must chain up to the meter's head, and play must resume to the
# very end state of a run with no cut. Also: a store that cannot be read
# faults and is not reformatted, and one bad meter copy falls back to the
# other. (The flash wear a round costs: test_flash_wear.py.)
#
# Why a process of its own: nothing but the proof may hold the board's heap,
# not even the test runner. The flash's bytes (64 KB of 4 KB blocks) are in a
# file, outside the heap as a board keeps them (ramflash.FileChip).
#
# The table day and its random source are plain Python; the proof runs on
# MicroPython only (littlefs and the viper device are the unix port's).
#
# The random source is keyed by cycle: the bytes a reset draws depend only on
# the cycle being started (and the seed), never on how many draws came
# before. A run cut short and resumed therefore draws, for every cycle, the
# very value the uninterrupted run drew, and the final states compare exactly.
# That would also hide a controller that redraws a cycle's value at boot, so
# the source is disarmed while the store boots: whatever it gives then comes
# from a stream no cycle uses, and the proof counts such calls.
#
# A cut in the commit of an operation that reveals the live value (the round
# that hits) after its log records landed leaves that value on the flash
# outside the committed state: the reboot must find the cycle exposed and
# refuse its rounds; the proof then redraws it in service mode, checks the
# redraw's revealed and new commitments, reboots, and plays the new value to
# its hit (the rest of the script no longer applies to that cycle).
#
# The record key (docs/host-link.md, "Record keys"): the day starts by giving
# the board its key and replaces it between the cycles, so every commit after
# the first signs its records, and each provision (the keys file written, the
# `key` record, the meter record naming the new key, the old key pruned) is
# cut at every flash operation too. After any cut the key in force is the
# one before the step or the one after, as the meters are, and every record
# the log keeps verifies with the key in force when it was made, worked by
# hand (hmac_by_hand.py): unsigned before the first key, and a replacement
# signed with the key it replaces.
#
# The program a technician accepts (table/program_check.py): its digest is
# kept in the hits copy the meter record names, and the day accepts one and
# then another, each cut at every flash operation; a reboot finds the digest
# before or after, as the meters (the proof's state digest holds it). A
# start's record (its program and reset cause) is cut the same way.
#
# The board's significant events (a display's fault raised and cleared,
# service mode entered and left, the clock set) are records of their own,
# each stamped with the board's time as every record is, and cut the same way.
#
# Rounds settled on the board (settled_day, settled_rounds.py): a
# settlement's commit is its log record, then a copy of the side wagers'
# meters naming it (store.py). After a cut in it the reboot must find those
# meters as before or as after the settlement, never half; a record whose
# meters never landed is reported and dropped (the store's one way for it:
# the settlement did not happen); the meters equal the sum of the results,
# worked by hand, of the rounds settled up to the last settlement record the
# log keeps, which the meters' copy names; and play resumes to the end state
# of the run with no cut.
import sys

from mystery.bonus import SettingRefused
from mystery.meter import Refused

# Configuration A1: $1 minimum wager, $100-$200, 2%. A2: $2 minimum wager, 1.5%.
# Seats: (seat, has an Ultimate Texas Hold 'Em wager, progressive wager in cents).
FULL = [(1, True, 2500), (2, True, 500), (3, False, 2500), (4, True, 2500), (5, True, 50),
        (6, True, 2500), (7, True, 1000)]  # seat 3: no UTH wager; seat 5: under $1
SMALL = [(2, True, 100), (5, True, 2500), (6, True, 150)]  # seats 2, 6 under A2's $2
NOBODY = [(1, False, 2500), (4, True, 99)]  # nobody qualifies; still a round
SHUFFLED = [(7, True, 2500), (1, True, 2500), (4, True, 2500)]  # applied in seat order

SEED = 345
SEGMENT_RECORDS = 8  # small, so log segments rotate and old ones are removed in the script
SEGMENTS_KEPT = 3
# The room for uncollected records a LOCK and another operation leave, cut
# to the proof's small log (the board's figures, retention.py, need a larger
# one: test_log_retention.py proves them); the day is collected every
# COLLECT_EVERY operations that write, as a floor's confirmations collect it.
LOCK_NEEDS, OP_NEEDS = 3, 2
COLLECT_EVERY = 2
PICO_SEGMENTS = 40  # boards/rp2040_pico/board.py: a full log of these boots in the heap
# The proof's flash holds the store with a few blocks to spare, fewer than the
# reserve a board's store keeps free for a commit (store.py): its store keeps
# a reserve that fits. The reserve itself is proven on a full flash
# (secrecy_flash_script.py).
RESERVE_BLOCKS = 2

# The day's record keys, first and replacement (64 lower-case hex digits each).
KEY_FIRST = "6b" * 32
KEY_SECOND = "0123456789abcdef" * 4
# The digests of two programs a technician accepts, one after the other.
PROGRAM_FIRST = "a1" * 32
PROGRAM_SECOND = "b2" * 32

# A display's fault raised and cleared (table/display_watch.py): records of their own.
DISPLAY_FAULT = {"ev": "fault", "source": "display",
                 "reason": "display: the LED meter does not acknowledge (9 bytes missed)"}
DISPLAY_CLEARED = {"ev": "fault_cleared", "source": "display",
                   "reason": DISPLAY_FAULT["reason"]}
# The controller's door opened and closed (table/door.py): records of their own.
DOOR_OPENED = {"ev": "door", "state": "open"}
DOOR_CLOSED = {"ev": "door", "state": "closed"}

# Service mode entered and left, and the clock set in it (table/controller.py):
# records of their own, no money.
SERVICE_ENTERED = {"ev": "service", "entered": True}
SERVICE_LEFT = {"ev": "service", "entered": False}
CLOCK_SET = {"ev": "clock", "was": [2021, 1, 1, 0, 0, 9], "new": [2026, 12, 5, 14, 30, 0],
             "by": "key"}
# The board's clock as the day's bonus reads it: every record carries it
# (MysteryBonus._stamp), the same at every replay of a cut step.
BOARD_TIME = 1_796_479_740

SCRIPT = (
    ("provision", KEY_FIRST),  # the first key signs its own record
    ("configure", "A1"),
    ("reset",),
    ("round", FULL),
    ("round", SHUFFLED),
    ("round", NOBODY),
    ("round", FULL),
    ("round", FULL),
    ("round", FULL),  # A1's hit (seed 345: at seat 4, then seats 6 and 7 contribute)
    ("refused", "round", FULL),  # no round while the hit is pending
    ("refused", "configure", "A2"),  # nor a configuration change
    ("validate", "jackpot_slip"),
    ("refused", "round", FULL),  # no round before the reset
    ("refused", "redraw"),  # no redraw of a value that was never exposed
    ("refused", "set", "wager_cents", 99),  # under A1's $1 minimum
    ("set", "reset", "minimum"),  # the next hit's overshoot is retained
    ("provision", KEY_SECOND),  # the replacement, signed with the first key
    ("refused", "provision", KEY_SECOND),  # already in force: nothing written
    ("configure", "A2"),  # the change, at the meter's reset
    ("reset",),
    ("round", SMALL),
    ("round", FULL),
    ("round", FULL),
    ("round", FULL),
    ("round", FULL),  # A2's hit (at seat 4, then seats 6 and 7 contribute)
    ("validate", "table_inventory"),  # what seats 6 and 7 gave is retained
    ("reset",),
    ("set", "wager_cents", 500),  # at the reset: no round of this cycle yet
    ("round", SMALL),
    ("round", FULL),
    ("refused", "set", "wager_cents", 150),  # under A2's $2 minimum
    ("refusal_logged", "set", "wager_cents", 300),  # mid-cycle: refused, and logged
    ("event", DISPLAY_FAULT),  # the LED meter stopped acknowledging: a record, no money
    ("event", DISPLAY_CLEARED),
    ("event", DOOR_OPENED),  # the compartment opened: a record, no money
    ("event", DOOR_CLOSED),
    ("event", SERVICE_ENTERED),
    ("event", CLOCK_SET),
    ("event", SERVICE_LEFT),
    ("round", FULL),
    ("accept_program", PROGRAM_FIRST),  # the first program accepted: the hits copy rewritten
    ("refused", "accept_program", PROGRAM_FIRST),  # already the accepted one
    ("round", FULL),
    ("accept_program", PROGRAM_SECOND),  # another, its digest over the first's
    ("start", PROGRAM_SECOND, "pwron_reset"),  # a start's record (table/controller.py)
    ("round", FULL),
)

# The same day with rounds' side wagers settled on the board
# (settled_rounds.py), in a process of its own (test_power_cut.py): each
# operation below goes in after the step of SCRIPT numbered. Settlements in
# a cycle, while its hit waits for validation, after the validation before
# the reset, and under other paytables with a payout limit that cuts a win.
def settled_day():
    from settled_rounds import FIRST_TABLES, SECOND_LIMIT, SECOND_TABLES

    after = {
        1: (("set", "paytables", FIRST_TABLES),),  # the side wagers the table offers
        3: (("settle", "s1"),),  # after the cycle's first round
        8: (("settle", "s2"),),  # after the round that hit, the hit not yet validated
        11: (("settle", "s3"),),  # after the validation, before the reset
        15: (("set", "paytables", SECOND_TABLES),  # other paytables, no Bad Beat
             ("set", "max_payout_cents", SECOND_LIMIT),  # and a payout limit
             ("refused", "settle", "s4", {"paytables": FIRST_TABLES})),  # no longer the table's
        20: (("settle", "s4"),),  # a Trips win cut to the payout limit
        27: (("settle", "s5"),),
    }
    day = []
    for i, op in enumerate(SCRIPT):
        day.append(op)
        day.extend(after.get(i, ()))
    return tuple(day)


def collected(day):
    # The day with ("collect",) after every COLLECT_EVERY operations that
    # write: the log's collected mark moved to its head.
    out, writing = [], 0
    for op in day:
        out.append(op)
        writing += op[0] != "refused"
        if writing == COLLECT_EVERY:
            out.append(("collect",))
            writing = 0
    return tuple(out)


def _collect(bonus):
    # As the floor confirms it stored the log up to the head: authenticated
    # with the key in force (worked by hand), or, before the first key,
    # unsigned with the key switch held.
    import hmac_by_hand

    store = bonus.store
    auth = None
    if store.key is not None:
        auth = hmac_by_hand.collected_auth(store.key, store.head_seq,
                                           store.record_hash(store.head_seq))
    mark = bonus.confirm_collected(store.head_seq, auth, store.key is None)
    assert mark == store.head_seq, (mark, store.head_seq)
    return []


def apply(bonus, op):
    # Plays one scripted operation and gives its events (None for a refusal,
    # which a "refused" operation must be).
    name = op[0]
    if name == "collect":
        return _collect(bonus)
    if name == "refusal_logged":  # refused, the refusal a committed record
        try:
            apply(bonus, op[1:])
        except SettingRefused as refusal:
            return refusal.records
        raise AssertionError("not refused: %r" % (op,))
    if name == "refused":
        try:
            apply(bonus, op[1:])
        except Refused:
            return None
        raise AssertionError("not refused: %r" % (op,))
    if name == "configure":
        return bonus.configure(op[1])
    if name == "reset":
        return bonus.reset()
    if name == "round":
        return bonus.lock_round(op[1])
    if name == "validate":
        return bonus.validate(op[1])
    if name == "redraw":
        return bonus.redraw()
    if name == "provision":
        return bonus.provision(op[1])
    if name == "set":
        return bonus.change_setting(op[1], op[2])
    if name == "event":
        return bonus.record_event(dict(op[1]))
    if name == "accept_program":
        return bonus.accept_program("files", op[1])
    if name == "start":
        return bonus.record_start(op[1], op[2])
    if name == "settle":  # a round's side wagers (settled_rounds.py), maybe changed
        from settled_rounds import ROUNDS

        data = dict(ROUNDS[op[1]][2])
        data.update(op[2] if len(op) > 2 else {})
        return bonus.settle_round(data)[1]  # its log record, as the others' events
    raise ValueError("unknown operation %r" % (name,))


def describe(index, op):
    if op[0] == "round":
        return "%d round (%d seats)" % (index, len(op[1]))
    if op[0] == "settle":
        return "%d settle round %s" % (index, op[1])
    if op[0] == "event":
        return "%d %s record" % (index, op[1]["ev"])
    if "provision" in op:  # the key itself is not printed, as nothing of the board's shows it
        return "%d %sprovision" % (index, "refused " if op[0] == "refused" else "")
    return "%d %s" % (index, " ".join(str(part) for part in op))


class CycleRandom:
    # random_bytes for a MysteryBonus: set .bonus after building it.
    def __init__(self, seed=SEED):
        self.seed = seed
        self.bonus = None
        self.armed = True
        self.unarmed_calls = 0
        self._key = None
        self._state = 0

    def __call__(self, n):
        if self.armed:
            # A redraw of an exposed value draws from a stream of its own.
            key = self.bonus.meter.cycle + (1000 if self.bonus.meter.exposed else 0)
        else:
            self.unarmed_calls += 1
            key = -1  # a stream no cycle draws from
        if key != self._key:
            self._key = key
            self._state = (self.seed * 7919 + key * 104729 + 12345) & 0xFFFFFFFF
        out = bytearray(n)
        for i in range(n):
            self._state = (self._state * 1664525 + 1013904223) & 0xFFFFFFFF
            out[i] = self._state >> 24
        return bytes(out)


# The heap the process was given (test_power_cut.py passes it on, to be named).
HEAP = sys.argv[3] if len(sys.argv) > 3 else "(not given)"

if sys.implementation.name == "micropython" and __name__ == "__main__":
    import binascii
    import gc
    import hashlib
    import os
    import time

    import micropython

    import hmac_by_hand
    import tmpdir
    from mystery import chain, configs, hitvalue
    from mystery.bonus import MysteryBonus
    from mystery.meter import PENDING, RUNNING
    from mystery.record import to_record
    from mystery.store import Store
    from ramflash import (
        BOARD_MOUNTS,
        DONE,
        HALF,
        LOST,
        MODES,
        FileChip,
        RamFlash,
        new_chip,
    )

    MOUNT = "/flash"
    DROPPED = "an operation whose meter record never landed"  # the boot's report
    EXPOSED = "cycle %d's hit value was written to flash"  # and when it revealed the value
    BLOCK_SIZE = 4096  # a board's erase block

    # ---- the flash and the controller on it ----

    # littlefs as a board mounts it: with the Pico's settings the meter record
    # lives inline in metadata, with the ESP32's in a data block of its own.
    BOARD = sys.argv[1] if len(sys.argv) > 1 else "esp32"
    MOUNT_KEYWORDS = BOARD_MOUNTS[BOARD]
    # The day the process plays: SCRIPT ("day"), or the day with settled
    # rounds, cut at every operation of one settlement ("settled") or of
    # every step ("settled-full"). The settlement's modules and the rounds'
    # figures load only then: the table day keeps that heap, as a table
    # never sent a round does.
    MODE = sys.argv[2] if len(sys.argv) > 2 else "day"
    SETTLED = MODE != "day"
    if SETTLED:
        import settled_rounds

        DAY = collected(settled_day())
    else:
        DAY = collected(SCRIPT)
    # Enough for the store with a few to spare (a Pico's filesystem has
    # 212); with the ESP32's mount the side wagers' two copies take a block
    # each.
    BLOCKS = 18 if SETTLED else 16

    def _mount(blocks, cut_at=-1, mode=DONE):
        device = RamFlash(blocks, cut_at, mode)
        os.mount(os.VfsLfs2(device, **MOUNT_KEYWORDS), MOUNT)
        return device

    def _unmount():
        os.umount(MOUNT)

    def _boot(segment_records=SEGMENT_RECORDS, segments_kept=SEGMENTS_KEPT):
        # A new controller on whatever is mounted; its random source is
        # disarmed while the store boots (a boot must draw nothing).
        source = CycleRandom()
        store = Store(MOUNT, segment_records, segments_kept, RESERVE_BLOCKS)
        store.lock_needs, store.op_needs = LOCK_NEEDS, OP_NEEDS
        bonus = MysteryBonus(store, source, lambda: BOARD_TIME)
        source.bonus = bonus
        source.armed = False
        events = bonus.boot()
        source.armed = True
        return bonus, source, events

    def _state(bonus):
        # Every field of the meter record (the secret hit value and salt too),
        # the recent hits, settings and retained total, the commitment, the
        # commit and hits numbers, the log head and the side wagers' meters,
        # as one digest.
        store, meter = bonus.store, bonus.meter
        rare = {"hits": meter.last_hits, "settings": meter.settings, "retained": meter.retained}
        # The side wagers' meters and the copy that holds them (which, its
        # number, the log record it names).
        side = {"wagers": None if store.wagers is None else store.wagers.to_record(),
                "copy": store._wagers_copy}
        # Piece by piece: the heap, shared with the settlement's modules,
        # may hold no block as long as the pieces joined.
        digest = hashlib.sha256()
        for piece in (chain.canonical(to_record(meter)), chain.canonical(rare),
                      "%s|%d|%d|%d|%s|%s|%s|%d|%d" % (
                          meter.commitment, store.commit_seq, store.hits_seq, store.head_seq,
                          store.head_hash, store.key_id, store.program, store.mark.seq,
                          store.mark.lost),
                      chain.canonical(side)):
            digest.update(piece.encode())
            digest.update(b"|")
        return digest.digest()

    # The day's keys by their ids, worked by hand.
    KEYS_BY_TEXT = {text: binascii.unhexlify(text) for text in (KEY_FIRST, KEY_SECOND)}
    KEYS = {hmac_by_hand.key_id(key): key for key in KEYS_BY_TEXT.values()}

    def _check_signatures(bonus, records):
        # Every kept record unsigned until the first key, then signed with the
        # key in force when it was made (a `key` record with the key it
        # replaces, or its own if the first); the store's key in force the
        # last record's, and its bytes the key of that id.
        store = bonus.store
        in_force = None
        for record in records:
            auth = record.get("auth")
            if auth is None:
                assert in_force is None, "record %d unsigned after a key" % record["seq"]
                continue
            kid = auth[:16]
            if in_force is None and record["ev"] == "key":
                in_force = record["was"] or record["key_id"]
            assert in_force is None or kid == in_force, "record %d: key %s, not %s" % (
                record["seq"], kid, in_force)
            assert auth == hmac_by_hand.record_auth(KEYS[kid], record), (
                "record %d's authenticator does not verify" % record["seq"])
            in_force = record["key_id"] if record["ev"] == "key" else kid
        if in_force is not None:
            assert store.key_id == in_force, "key in force %s, the log's %s" % (store.key_id,
                                                                                 in_force)
        if store.key_id is not None:
            assert store.key == KEYS[store.key_id], "the key in force is not its id's"

    def _log_state(bonus):
        # The kept log: segment names and every record's hash (which covers it).
        digest = hashlib.sha256(" ".join(sorted(os.listdir(MOUNT + "/log"))).encode())
        for record in bonus.log_since(0):
            digest.update(record["hash"].encode())
        return digest.digest()

    def _image_digest(blocks):
        digest = hashlib.sha256()
        for block in blocks:
            digest.update(block)
        return digest.digest()

    def _format(blocks):
        # A new filesystem on a new chip (the only mkfs; a reboot never formats).
        device = RamFlash(blocks)
        os.VfsLfs2.mkfs(device, **MOUNT_KEYWORDS)
        return device

    # The proof's flash chips are files in this folder (ramflash.FileChip):
    # a board's flash is outside its heap, and so is theirs.
    FLASH_DIR = tmpdir.make()
    _chips = [0]

    class Chip:
        # One flash chip, and what it holds new with a new filesystem
        # (formatted once; making a new chip again is a copy, not a mkfs).
        def __init__(self, block_count=BLOCKS):
            _chips[0] += 1
            self.blocks = FileChip("%s/chip%d.bin" % (FLASH_DIR, _chips[0]), block_count,
                                   BLOCK_SIZE)
            _format(self.blocks)
            # Each written block's bytes up to its last written one.
            self.formatted = []
            for i, block in enumerate(self.blocks):
                used = BLOCK_SIZE
                while used and block[used - 1] == 0xFF:
                    used -= 1
                if used:
                    self.formatted.append((i, bytes(block[:used])))

        def new(self):
            self.blocks.erase_all()
            for i, content in self.formatted:
                self.blocks.write(i, content)

    # ---- the reference run ----

    # The steps power is cut in: the first boot (a new store writes its
    # first meter record) and then every operation of the script.
    STEPS = (("boot",),) + DAY

    def _describe(step):
        if step == 0:
            return "0 boot of a new store"
        return describe(step, STEPS[step])

    class Reference:
        # The script played to the end with no cut: the state before and after
        # each step (states[step], states[step + 1]), where its flash
        # operations start, the log's kept range, each cycle's hit value, the
        # final state.
        def __init__(self, chip):
            self.states = []
            self.dropped = []
            self.starts = [0]  # flash operations before each step
            self.hit_values = {}
            self.hits = []
            self.reveals = []  # steps whose records carry the live cycle's hit value
            chip.new()
            device = _mount(chip.blocks)
            try:
                bonus, _, events = _boot()
                assert events == [] and bonus.fault is None, events
                self._note(bonus)  # a new store boots to what its first boot writes
                self._note(bonus)
                self.starts.append(device.ops)
                for op in DAY:
                    events = apply(bonus, op) or ()
                    if [event for event in events if "hit_value" in event]:
                        self.reveals.append(len(self.starts) - 1)
                    for event in events:
                        if event["ev"] == "hit":  # (cycle, seat, seats contributing after it)
                            self.hits.append((event["cycle"], event["seat"], [
                                c[0] for c in events[0]["contributions"] if c[0] > event["seat"]]))
                    if op[0] == "settle":
                        _check_side_wagers(bonus, list(bonus.log_since(0)))
                    _check_signatures(bonus, list(bonus.log_since(0)))
                    self._note(bonus)
                    self.starts.append(device.ops)
                self.final_log = _log_state(bonus)
                if SETTLED:
                    assert bonus.wager_meters()["wagers"] == settled_rounds.meters(
                        settled_rounds.LABELS)
            finally:
                _unmount()
            _mount(chip.blocks)  # what was played is what a reboot reads
            try:
                bonus, source, events = _boot()
                assert events == [] and bonus.fault is None, events
                assert source.unarmed_calls == 0, "the boot drew random bytes"
                assert _state(bonus) == self.states[-1], "a reboot changed the meters"
                assert _log_state(bonus) == self.final_log, "a reboot changed the log"
                _check_side_wagers(bonus, list(bonus.log_since(0)))
                assert bonus.store.key_id == hmac_by_hand.key_id(KEYS_BY_TEXT[KEY_SECOND])
                assert bonus.store.program == PROGRAM_SECOND, bonus.store.program
                _check_signatures(bonus, list(bonus.log_since(0)))
            finally:
                _unmount()

        def _note(self, bonus):
            self.states.append(_state(bonus))
            self.dropped.append(bonus.store.dropped())
            meter = bonus.meter
            if meter.phase in (RUNNING, PENDING):
                known = self.hit_values.setdefault(meter.cycle, meter._hit_value)
                assert known == meter._hit_value, "cycle %d drew twice" % meter.cycle

        def flash_ops(self, step):
            return self.starts[step + 1] - self.starts[step]

    # ---- one cut ----

    def _before_exposed(bonus):
        # The state digest of an exposed meter as it was before its boot
        # marked it (one commit earlier, not exposed).
        bonus.meter.exposed = False
        bonus.store.commit_seq -= 1
        try:
            return _state(bonus)
        finally:
            bonus.meter.exposed = True
            bonus.store.commit_seq += 1

    def _check_booted(bonus, source, events, ref, index):
        # The checks after a reboot on the bytes a cut left; gives "before",
        # "after" or "exposed" (the state of the operation in flight that was
        # found: exposed is before, with the cycle's value marked exposed)
        # and whether the boot reported the operation dropped.
        assert bonus.fault is None, bonus.fault
        # No unreadable meter copy; at most the report of the cut operation's
        # records dropped, and then the operation must not have happened; and
        # the report of an exposed value, when that operation revealed it.
        meter, store = bonus.meter, bonus.store
        dropped = [e for e in events if e["reason"].startswith(DROPPED)]
        exposed = [e for e in events if e["reason"].startswith(EXPOSED % meter.cycle)]
        assert len(dropped) + len(exposed) == len(events) and len(dropped) <= 1, events
        assert len(exposed) == meter.exposed, (events, meter.exposed)
        assert source.unarmed_calls == 0, "the boot drew random bytes"
        state = _state(bonus)
        if meter.exposed:
            assert index in ref.reveals, "exposed by an operation that reveals no value"
            assert _before_exposed(bonus) == ref.states[index], "exposed, not the state before"
            found = "exposed"
        elif state == ref.states[index]:
            # Its records gone with the value in them, the value stays secret.
            assert not (dropped and index in ref.reveals), "a dropped hit left its value live"
            found = "before"
        elif state == ref.states[index + 1] and not dropped:
            found = "after"
        else:
            raise AssertionError("meters are neither the state before nor after the operation "
                                 "(or after it, and its records reported dropped): %r %r"
                                 % (to_record(bonus.meter), events))
        assert meter.seeded + meter.contributed == (
            meter.paid + meter.meter + meter.retained), "identity"
        if meter.phase in (RUNNING, PENDING):
            assert meter._hit_value == ref.hit_values[meter.cycle], "cycle got a new hit value"
            assert hitvalue.commitment(meter._hit_value, meter._salt) == meter.commitment
        records = list(bonus.log_since(0))
        ok, message = chain.verify(records)
        assert ok, message
        _check_signatures(bonus, records)
        if store.head_seq:
            assert records[-1]["seq"] == store.head_seq and records[-1]["hash"] == store.head_hash
        for record in records:
            if record["ev"] == "reset" and record["cycle"] == meter.cycle:
                assert record["commitment"] == meter.commitment, "published commitment differs"
        _check_side_wagers(bonus, records)
        meters = bonus.meters()
        assert meters["log_seq"] == store.head_seq
        low, high = ref.dropped[index], ref.dropped[index + 1]
        assert low <= store.dropped() <= high, "log removed %d, not in [%d, %d]" % (
            store.dropped(), low, high)
        # Only collected records went: none lost, the mark never past the head.
        assert meters["log_dropped"] == 0 and store.mark.seq <= store.head_seq, (
            meters["log_dropped"], store.mark.seq)
        return found, bool(dropped)

    def _check_side_wagers(bonus, records):
        # The side wagers' meters agree with the kept log's settlement
        # records: those kept are the last ones settled, in order, each as
        # worked by hand (settled_rounds.py); the meters are what the hand
        # worked results of every round settled up to the last of them add up
        # to; and the copy holding the meters names that last record. A log
        # that keeps none (its segments removed to keep it bounded) must have
        # dropped every settlement the meters count.
        store = bonus.store
        settled = [record for record in records if record["ev"] == "settled"]
        if not SETTLED:
            assert store.wagers is None and not settled
            return
        counted = bonus.wager_meters()
        labels = [record["label"] for record in settled]
        done = settled_rounds.LABELS[:counted["settled"]]
        assert counted["wagers"] == settled_rounds.meters(done), (
            "side-wager meters are not those of the rounds %r" % (done,))
        assert labels == list(done[len(done) - len(labels):]), (
            "the log's settlements %r are not the last of %r" % (labels, done))
        for record in settled:
            tables, limit, _, _ = settled_rounds.ROUNDS[record["label"]]
            assert record["seats"] == settled_rounds.record_seats(record["label"]), record
            assert record["paytables"] == [tables.get(w) for w in settled_rounds.ORDER]
            assert record["limits"] == [limit] * len(settled_rounds.ORDER), record["limits"]
        copy = store._wagers_copy
        if settled:
            assert copy[2:] == [settled[-1]["seq"], settled[-1]["hash"]], (
                "the meters' copy names %r, not the last settlement" % (copy,))
        elif done:
            assert copy[2] <= store.dropped(), "the meters' settlement is not in the log"
        else:
            assert copy is None and store.wagers is None

    def _redraw_and_play(bonus, ref, step, chip):
        # An exposed cycle: its rounds refused; the redraw (the table allows
        # it in service mode) reveals the old value as its reset committed
        # to, publishes the new one's commitment and moves no money; after a
        # reboot the new value is the one that hits.
        meter = bonus.meter
        cycle, old_value, old_commitment = meter.cycle, meter._hit_value, meter.commitment
        try:
            apply(bonus, STEPS[step])
            raise AssertionError("an exposed cycle took %r" % (STEPS[step],))
        except Refused:
            pass
        before = bonus.meters()
        event = apply(bonus, ("redraw",))[0]
        assert (event["ev"], event["cycle"], event["hit_value"]) == ("redraw", cycle, old_value)
        assert old_value == ref.hit_values[cycle], "the redraw revealed another value"
        assert hitvalue.commitment(old_value, event["salt"]) == old_commitment
        assert event["revealed"] == old_commitment and event["commitment"] != old_commitment
        new_value = meter._hit_value
        assert max(meter.meter, configs.get(meter.config).minimum) <= new_value, new_value
        assert hitvalue.commitment(new_value, meter._salt) == event["commitment"]
        after = bonus.meters()
        for name in ("meter", "seeded", "contributed", "paid", "cycle", "round", "hits"):
            assert after[name] == before[name], name
        assert after["log_seq"] == before["log_seq"] + 1 and not after["exposed"]
        _unmount()
        _mount(chip.blocks)
        bonus, _, events = _boot()
        assert events == [] and bonus.fault is None and not bonus.meter.exposed, events
        assert bonus.meter._hit_value == new_value
        for _ in range(200):
            _collect(bonus)  # as the floor collects the rounds it takes to hit
            hits = [e for e in apply(bonus, ("round", FULL)) if e["ev"] == "hit"]
            if hits:
                assert hits[0]["hit_value"] == new_value
                assert hits[0]["commitment"] == event["commitment"]
                break
        assert bonus.meter.phase == PENDING, "the new value never hit"
        assert chain.verify(list(bonus.log_since(0)))[0]

    def _cut_and_recover(chip, ref, step, cut_at, mode, tally, recovery_cut=None):
        # Plays the script on a new chip with the power cut at flash operation
        # `cut_at` of `step`, reboots on what survived, checks, plays on; gives
        # how many flash operations the boot after the cut made. With
        # recovery_cut (operation, mode), the power goes again in that boot.
        chip.new()
        device = _mount(chip.blocks, ref.starts[step] + cut_at, mode)
        try:
            bonus, _, _ = _boot()
            if step > 0:
                assert bonus.fault is None, bonus.fault
                for earlier in range(step - 1):
                    apply(bonus, DAY[earlier])
                assert not device.dead and device.ops == ref.starts[step], "replay differs"
                try:
                    apply(bonus, STEPS[step])
                    raise AssertionError("the step ended before flash operation %d" % cut_at)
                except Refused:
                    pass
            assert device.dead and bonus.fault is not None, "no cut, or no fault after it"
        finally:
            _unmount()  # the dead filesystem goes with its device
        if recovery_cut is not None:
            device = _mount(chip.blocks, recovery_cut[0], recovery_cut[1])
            try:
                bonus, _, _ = _boot()
                assert device.dead and bonus.fault is not None, "no cut in the boot"
            finally:
                _unmount()
        # Power back: a new device over the bytes that survived (the dead one
        # never touches them again), a new controller, a normal boot.
        device = _mount(chip.blocks)
        try:
            bonus, source, events = _boot()
            recovery_ops = device.ops
            found, reported = _check_booted(bonus, source, events, ref, step)
            tally[found] += 1
            tally["reported"] += reported
            if STEPS[step][0] == "settle":
                tally["settle " + found] = tally.get("settle " + found, 0) + 1
                tally["settle reported"] += reported
            if STEPS[step][0] == "provision":  # "before": the old key in force, "after": the new
                tally["key " + found] = tally.get("key " + found, 0) + 1
            if found == "exposed":
                _redraw_and_play(bonus, ref, step, chip)
                return recovery_ops
            # Play resumes: the operation again if it did not happen, then the rest.
            first = max(0, step - 1 if found == "before" else step)
            for later in range(first, len(DAY)):
                apply(bonus, DAY[later])
                meter = bonus.meter
                if meter.phase in (RUNNING, PENDING):  # each cycle with its one hit value
                    assert meter._hit_value == ref.hit_values[meter.cycle], "new hit value"
            assert _state(bonus) == ref.states[-1], "final meters differ from the reference run"
            _check_signatures(bonus, list(bonus.log_since(0)))
            assert _log_state(bonus) == ref.final_log, "final log differs from the reference run"
        finally:
            _unmount()
        return recovery_ops

    def _try_all(cuts, ref, chip, tally, label, started):
        # Every (step, cut_at, mode, recovery_cut) cuts gives; prints the summary
        # line and gives the failures.
        tried = [0, 0, 0]
        failed = [0, 0, 0]
        failures = []
        recoveries = {}  # step: (flash operations of the boot after the cut, cut_at, mode)
        for step, cut_at, mode, recovery_cut in cuts:
            counted = mode if recovery_cut is None else recovery_cut[1]
            tried[counted] += 1
            try:
                ops = _cut_and_recover(chip, ref, step, cut_at, mode, tally, recovery_cut)
                if ops > recoveries.get(step, (0,))[0]:
                    recoveries[step] = (ops, cut_at, mode)
            except Exception as error:  # noqa: BLE001 -- every cut point is tried and reported
                failed[counted] += 1
                if len(failures) < 8:
                    failures.append("step %s, flash op %d, %s%s: %s: %s" % (
                        _describe(step), cut_at, MODES[mode], "" if recovery_cut is None else
                        ", then in the boot at flash op %d, %s" % (
                            recovery_cut[0], MODES[recovery_cut[1]]),
                        type(error).__name__, error))
            gc.collect()
        print("%s: %d cut points x 3 modes tried, %d failed (%s), %.1f s" % (
            label, tried[0], sum(failed), ", ".join(
                "%s %d/%d" % (MODES[m], failed[m], tried[m]) for m in (LOST, HALF, DONE)),
            time.ticks_diff(time.ticks_ms(), started) / 1000))
        for line in failures:
            print("  FAILED", line)
        return tried[0], failures, recoveries

    def _check_day(ref, reveals):
        # The day does what it is for: a hit at a middle seat (later seats
        # still contribute) in each of its two cycles, revealing its value
        # at the steps `reveals`; log segments rotate and old ones go; a
        # refused operation writes nothing.
        assert ref.hits == [(1, 4, [6, 7]), (2, 4, [6, 7])], ref.hits
        assert ref.reveals == reveals, ref.reveals
        assert ref.dropped[-1] > 0
        for step in range(1, len(STEPS)):
            assert (ref.flash_ops(step) == 0) == (STEPS[step][0] == "refused"), step

    def _cut_steps(ref, chip, steps, tally, label):
        # Power cut at every flash operation of `steps` in each of the three
        # ways; then again at every flash operation of the longest boot after
        # a cut of each step that wrote (it may drop an unfinished
        # operation's log records, remove meter.tmp, mark a value exposed).
        # Gives the cut points of each round.
        started = time.ticks_ms()
        cuts = ((step, cut_at, mode, None) for step in steps
                for cut_at in range(ref.flash_ops(step)) for mode in (LOST, HALF, DONE))
        label = "power cut, %s mount %r (%s)" % (BOARD, MOUNT_KEYWORDS, label)
        points, failures, recoveries = _try_all(cuts, ref, chip, tally, label, started)
        print("power cut: reboots found the operation not done %d times (%d of them reporting "
              "its log records dropped, %d its hit value exposed and then redrawn), done %d "
              "times; %d steps' boots after a cut wrote to flash" % (
                  tally["before"] + tally["exposed"], tally["reported"], tally["exposed"],
                  tally["after"], len(recoveries)))
        tally["exposed first"] = tally["exposed"]
        started = time.ticks_ms()
        cuts = ((step, cut_at, mode, (op, second)) for step, (ops, cut_at, mode)
                in sorted(recoveries.items()) for op in range(ops)
                for second in (LOST, HALF, DONE))
        again, more_failures, _ = _try_all(cuts, ref, chip, tally,
                                           "power cut in the boot after a cut", started)
        assert points > 0 and again > 0 and not failures and not more_failures, (
            failures + more_failures)
        return points, again

    def _new_tally():
        return {"before": 0, "after": 0, "reported": 0, "exposed": 0, "settle before": 0,
                "settle after": 0, "settle reported": 0, "key before": 0, "key after": 0}

    def check_power_cut_at_every_flash_operation():
        chip = Chip()
        ref = Reference(chip)
        # SCRIPT's steps 9 and 25, after the 4 and 9 collects put before them.
        _check_day(ref, [13, 34])
        tally = _new_tally()
        _cut_steps(ref, chip, range(len(STEPS)), tally, "%d steps" % len(STEPS))
        # The hitting rounds of both cycles were cut after their records
        # landed; and cut again in the boot that marks the cycle exposed, the
        # reboot still finds it exposed (the mark lands before the records go).
        print("  of the boots after a cut cut again, %d found the cycle exposed"
              % (tally["exposed"] - tally["exposed first"]))
        assert tally["exposed first"] > 0, tally
        assert tally["exposed"] > tally["exposed first"], tally
        provisions = [step for step in range(1, len(STEPS)) if STEPS[step][0] == "provision"]
        print("  record keys: %d provisions, %s flash operations, cut; reboots found the old key "
              "(or none) in force %d times, the new one %d times, every kept record verifying"
              % (len(provisions), "+".join(str(ref.flash_ops(step)) for step in provisions),
                 tally["key before"], tally["key after"]))
        assert tally["key before"] > 0 and tally["key after"] > 0, tally

    # The settlement cut at every operation in the default run (settled
    # mode): the one after the first hit's validation, which writes over
    # the older copy of the side wagers' meters (the two before it made
    # them). With the Pico's mount the commit after it too, whose copies
    # are renamed into place beside the meters' copies (a rename there once
    # cost one of them, store.py); with the ESP32's, whose operations cost
    # more time, that is the full sweep's (settled-full).
    SETTLEMENT_CUT = "s3"

    def check_power_cut_through_settled_rounds():
        # The settled rounds' commits (a log record, then the side wagers'
        # meters naming it) cut at every operation: found not done, with the
        # record dropped when it had landed, or done; never half.
        chip = Chip()
        ref = Reference(chip)
        # The settled day's steps 11 and 33, after the 5 and 12 collects before them.
        _check_day(ref, [16, 45])
        settles = [step for step in range(1, len(STEPS)) if STEPS[step][0] == "settle"]
        assert [STEPS[step][1] for step in settles] == list(settled_rounds.LABELS)
        if MODE == "settled":
            at = [step for step in settles if STEPS[step][1] == SETTLEMENT_CUT][0]
            steps = [at]
            label = "settled round %s, %d operations" % (SETTLEMENT_CUT, ref.flash_ops(at))
            if BOARD == "pico":
                steps.append([step for step in range(at + 1, len(STEPS))
                              if ref.flash_ops(step)][0])
                label += ", and step %s, %d" % (_describe(steps[1]), ref.flash_ops(steps[1]))
        else:
            steps = range(len(STEPS))
            label = "%d steps with %d settled rounds" % (len(STEPS), len(settles))
        tally = _new_tally()
        _cut_steps(ref, chip, steps, tally, label)
        print("  settled rounds: %d of their operations cut; reboots found the settlement not "
              "done %d times (%d of them reporting its record dropped), done %d times" % (
                  sum(ref.flash_ops(step) for step in settles if step in steps),
                  tally["settle before"], tally["settle reported"], tally["settle after"]))
        assert tally["settle before"] > tally["settle reported"] > 0, tally
        assert tally["settle after"] > 0, tally

    # ---- what cannot be read ----

    def _played(chip, rounds):
        # A configured store with `rounds` rounds (no hit) on a new chip: its
        # state digest after each of the last two operations.
        chip.new()
        _mount(chip.blocks)
        try:
            bonus, _, _ = _boot()
            apply(bonus, ("configure", "A1"))
            apply(bonus, ("reset",))
            states = []
            for n in range(rounds):
                if n < rounds - 2:  # the last two states' marks alike: the copies' are compared
                    apply(bonus, ("collect",))
                apply(bonus, ("round", SMALL))
                states = (states + [_state(bonus)])[-2:]
            return states, bonus.store.commit_seq
        finally:
            _unmount()

    def _copy_location(blocks, name):
        # Where the stored copy `name` starts in the raw flash: (block, offset)
        # of its body (its header, with its commit number and CRC, is on the
        # flash once, at the start of the file's first block).
        _mount(blocks)
        try:
            with open(MOUNT + "/" + name, "rb") as f:
                header = f.read().split(b"\n", 1)[0] + b"\n"
        finally:
            _unmount()
        found = [(i, block.find(header)) for i, block in enumerate(blocks)
                 if block.find(header) >= 0]
        assert len(found) == 1, "%s found %d times on the flash" % (name, len(found))
        return found[0][0], found[0][1] + len(header)

    # Two ways a stored byte goes bad: one bit (still text, the CRC catches
    # it) and a whole byte (no longer UTF-8 text, reading it raises).
    ONE_BIT = 0x01
    WHOLE_BYTE = 0xFF

    def _corrupt(blocks, name, mask):
        block, body = _copy_location(blocks, name)
        blocks.flip(block, body + 20, mask)  # inside the JSON body

    def check_one_bad_meter_copy():
        chip = Chip()
        for mask in (ONE_BIT, WHOLE_BYTE):
            # The older copy bad: the newest is read, with a warning.
            (previous, newest), commit_seq = _played(chip, 6)
            newer_copy = "meter.%s" % "ab"[commit_seq % 2]
            older_copy = "meter.%s" % "ab"[1 - commit_seq % 2]
            _corrupt(chip.blocks, older_copy, mask)
            _mount(chip.blocks)
            try:
                bonus, _, events = _boot()
                assert bonus.fault is None, bonus.fault
                assert events == [{"ev": "store_warning",
                                   "reason": "meter copy %s is unreadable" % older_copy}], events
                assert _state(bonus) == newest, "the newest copy was not the one read"
                apply(bonus, ("round", SMALL))  # rewrites the bad copy
            finally:
                _unmount()
            _mount(chip.blocks)
            try:
                bonus, _, events = _boot()
                assert events == [] and bonus.fault is None, events
            finally:
                _unmount()
            # The newest copy bad: its operation's records are in the log, so
            # falling back would lose that operation. The store faults instead,
            # and leaves the flash as it found it.
            _played(chip, 6)
            _corrupt(chip.blocks, newer_copy, mask)
            before = [binascii.crc32(block) for block in chip.blocks]  # no room for a copy
            _mount(chip.blocks)
            try:
                bonus, _, events = _boot()
                assert bonus.fault is not None and events[0]["ev"] == "fault", events
                assert "newest meter copy is unreadable" in bonus.fault, bonus.fault
            finally:
                _unmount()
            after = [binascii.crc32(block) for block in chip.blocks]
            assert after == before, "a faulted boot wrote"

    def check_a_bad_bit_in_the_inline_record_is_never_silent():
        # With the Pico's mount the record lives inline in littlefs's
        # metadata, whose own CRC catches a flipped bit and reads the commit
        # before it: the newest operation goes back, or more. The store must
        # say so, by reporting the operation dropped or by a fault; never the
        # older meters in silence.
        chip = Chip()
        for mask in (ONE_BIT, WHOLE_BYTE):
            (previous, _), commit_seq = _played(chip, 6)
            name = "meter.%s" % "ab"[commit_seq % 2]
            _mount(chip.blocks)
            try:
                with open(MOUNT + "/" + name, "rb") as f:
                    header = f.read().split(b"\n", 1)[0] + b"\n"
            finally:
                _unmount()
            flipped = 0
            for i, block in enumerate(chip.blocks):  # every commit that carries the newest record
                at = block.find(header)
                while at >= 0:
                    chip.blocks.flip(i, at + len(header) + 20, mask)  # in block too
                    flipped += 1
                    at = block.find(header, at + 1)
            assert flipped >= 1, "the newest record is not on the flash as written"
            _mount(chip.blocks)
            try:
                bonus, _, events = _boot()
                if bonus.fault is None:
                    assert [e["reason"][:len(DROPPED)] for e in events] == [DROPPED], events
                    assert _state(bonus) == previous, "went back further than one operation"
            finally:
                _unmount()

    def check_unreadable_store_faults_and_is_never_reformatted():
        chip = Chip()
        for mask in (ONE_BIT, WHOLE_BYTE):
            _played(chip, 4)
            _corrupt(chip.blocks, "meter.a", mask)
            _corrupt(chip.blocks, "meter.b", mask)
            image = _image_digest(chip.blocks)
            for _ in range(2):  # and again after another power cycle
                _mount(chip.blocks)
                try:
                    bonus, _, events = _boot()
                    assert bonus.fault is not None and "no readable meter record" in bonus.fault, (
                        bonus.fault)
                    assert events == [{"ev": "fault", "reason": bonus.fault}], events
                    for method, args in ((bonus.meters, ()), (bonus.reset, ()),
                                         (bonus.lock_round, (SMALL,)),
                                         (bonus.configure, ("A1",))):
                        try:
                            method(*args)
                            raise AssertionError("a faulted store played on")
                        except Refused:
                            pass
                    assert sorted(os.listdir(MOUNT)) == ["collected.a", "collected.b", "log",
                                                         "meter.a", "meter.b"]
                finally:
                    _unmount()
                assert _image_digest(chip.blocks) == image, "the faulted boot wrote to flash"

    # ---- the device itself ----

    def check_ram_flash_is_nor_flash_and_allocates_nothing():
        # The bytes in RAM (new_chip) and in a file (FileChip, as the proof uses).
        _nor_flash_allocating_nothing(new_chip(2, BLOCK_SIZE))
        _nor_flash_allocating_nothing(FileChip(FLASH_DIR + "/device.bin", 2, BLOCK_SIZE))

    def _nor_flash_allocating_nothing(blocks):
        # tail: a program from byte 16 to the block's end, no further.
        zeros, tail, ones, pattern, out = (bytearray(BLOCK_SIZE), bytearray(BLOCK_SIZE - 16),
                                           bytearray(8), bytearray(8), bytearray(8))
        for i in range(8):
            ones[i] = 0xFF
            pattern[i] = 0xF0 | i
        device = RamFlash(blocks, cut_at=4, cut_mode=HALF)
        erase_cut = RamFlash(blocks, cut_at=1, cut_mode=HALF)
        lost_cut = RamFlash(blocks, cut_at=0, cut_mode=LOST)
        results = [None] * 16
        micropython.heap_lock()
        try:
            results[0] = device.writeblocks(1, pattern, 8)  # op 0
            results[1] = device.writeblocks(1, ones, 8)  # op 1: cannot set bits
            results[2] = device.readblocks(1, out, 8)
            results[3] = device.ioctl(6, 1)  # op 2: erase block 1
            results[4] = device.writeblocks(1, tail, 16)  # op 3 (a program may be short)
            results[5] = device.ioctl(4, 0)
            results[6] = device.ioctl(5, 0)
            results[7] = device.writeblocks(1, pattern, 0)  # op 4: the cut, half done
            results[8] = device.writeblocks(1, pattern, 100)  # dead from now on
            results[9] = device.readblocks(1, out, 0)
            results[10] = device.ioctl(6, 1)
            results[11] = erase_cut.writeblocks(0, zeros, 0)  # op 0
            results[12] = erase_cut.ioctl(6, 0)  # op 1: the cut, half the block erased
            results[13] = lost_cut.writeblocks(0, zeros, 0)  # op 0: the cut, nothing written
            results[14] = lost_cut.ioctl(6, 0)
        finally:
            micropython.heap_unlock()
        assert results == [0, 0, 0, 0, 0, 2, BLOCK_SIZE, -5, -5, -5, -5, 0, -5, -5, -5,
                           None], results
        assert bytes(out) == bytes(pattern)  # read before the erase
        block = blocks[1]
        assert bytes(block[:4]) == bytes(pattern[:4])
        assert bytes(block[4:16]) == b"\xff" * 12  # the half never written, then erased
        assert bytes(block[16:BLOCK_SIZE]) == bytes(BLOCK_SIZE - 16)
        half = BLOCK_SIZE // 2
        assert bytes(blocks[0][:half]) == b"\xff" * half
        assert bytes(blocks[0][half:]) == bytes(half)
        assert device.dead and device.ops == 5 and device.programs == 4 and device.erases == 1
        assert erase_cut.dead and lost_cut.dead and lost_cut.programs == 0

    # ---- a full log in the board's heap ----

    def check_a_full_log_boots_in_the_board_heap():
        # The Pico's log (its board file's 40 segments), every segment full
        # and collected as a floor collects it (on the host's filesystem:
        # that much log would not fit a RAM flash in this heap).
        root = tmpdir.make()
        try:
            bonus = MysteryBonus(Store(root, segments_kept=PICO_SEGMENTS),
                                 lambda n: (b"\x27\x0f" * 9)[:n])
            assert bonus.boot() == []
            bonus.configure("A1")
            bonus.reset()
            store = bonus.store
            rounds = store.segment_records * (store.segments_kept + 1)
            for number in range(rounds):
                if number % store.segment_records == 0:
                    store.collect(store.head_seq)
                if bonus.meter.phase == PENDING:  # a cycle of the Pico's long log hit
                    bonus.validate("jackpot_slip")
                    bonus.reset()
                bonus.lock_round([(seat, True, 100) for seat in range(1, 8)])
            assert bonus.meter.phase == RUNNING
            before = bonus.meters()
            bonus = None
            gc.collect()
            again = MysteryBonus(Store(root, segments_kept=PICO_SEGMENTS),
                                 lambda n: (b"\x27\x0f" * 9)[:n])
            assert again.boot() == [] and again.fault is None, again.fault
            assert again.meters() == before and before["log_removed"] > 0
            assert before["log_dropped"] == 0
            gc.collect()
            print("full log: %d rounds, %d records kept, boots with %d KB of the %s heap free"
                  % (rounds, before["log_seq"] - before["log_removed"], gc.mem_free() // 1024,
                     HEAP))
        finally:
            tmpdir.remove(root)

    # ---- run as a script ----

    def _main():
        # As tests/mp_run.py does: every check, a line for each failure, a summary.
        checks = (check_ram_flash_is_nor_flash_and_allocates_nothing,
                  check_one_bad_meter_copy,
                  check_unreadable_store_faults_and_is_never_reformatted,
                  check_a_full_log_boots_in_the_board_heap,
                  check_power_cut_at_every_flash_operation)
        if BOARD == "pico":
            # Only the cuts and a bad bit differ with the mount. The
            # bad-copy checks flip bits in a copy's data block, and with the
            # Pico's mount the record has none: it lives in littlefs's
            # metadata, whose own CRC catches a flipped bit.
            checks = (check_a_bad_bit_in_the_inline_record_is_never_silent,
                      check_power_cut_at_every_flash_operation)
        if SETTLED:
            checks = (check_power_cut_through_settled_rounds,)
        passed = failed = 0
        for check in checks:
            gc.collect()
            try:
                check()
                passed += 1
            except Exception as error:  # noqa: BLE001 -- each check counted, the rest still run
                failed += 1
                print("FAIL test_power_cut.%s: %s %s" % (check.__name__, type(error).__name__,
                                                         error))
                sys.print_exception(error)
        tmpdir.remove(FLASH_DIR)
        gc.collect()
        print("  test_power_cut (own process, heap %s, %s mount, %s): %d passed, %d failed; "
              "%d bytes of the heap free at the end" % (HEAP, BOARD, MODE, passed, failed,
                                                        gc.mem_free()))
        sys.exit(1 if failed else 0)

    _main()
