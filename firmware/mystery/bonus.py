# The Must-Hit-By Mystery bonus as the controller drives it: each operation
# on the meter is committed to the store as one atomic step before its events
# are released. A store that cannot be read or written puts the bonus in a
# fault that refuses play until a technician clears the cause and reboots.
import binascii

from micropython import const

from uth.let_go import let_go

from . import drbg, entropy, retention
from .meter import Refused
from .record import public_meters

HEALTH_FAULT = "the random number generator failed its known-answer check"
HOST_ENTROPY_HEX = (64, 128)  # the host's part of a `seed`, in hex digits (a line is 256 bytes)
# A board's clock reading earlier than this (2021-09-04, the day the first
# section took effect: uth/sections.py) was never set: a Pico's clock starts
# at 2021-01-01 at every power-up, an ESP32's at 2000-01-01.
CLOCK_SET_FROM = const(1_630_713_600)


class SettingRefused(Refused):
    # A setting's change refused mid-cycle, after its refusal was logged:
    # records, the log's records of it, for the host's events.
    def __init__(self, reason, records):
        super().__init__(reason)
        self.records = records


class MysteryBonus:
    def __init__(self, store, random_bytes, clock=None):
        self.store = store
        self.random_bytes = random_bytes  # the board's os.urandom
        self.clock = clock  # the board's time.time, kept with each hit; None: no clock
        self.meter = None
        self.fault = None
        self.started = None  # this power-up's `start` record's seq (clock_signed.py)

    def boot(self):
        # The generator answers its known answer first (drbg.health_check):
        # a board that cannot draw a secret plays no round.
        if not drbg.health_check():
            self.fault = HEALTH_FAULT
            return [{"ev": "fault", "reason": self.fault}]
        try:
            self.meter = self.store.boot()
        # Whatever the store raises (a StoreFault, an OSError, a MemoryError,
        # or a bug of its own on a damaged flash): never play on.
        except Exception as error:  # noqa: BLE001
            self.fault = "store: %s" % (str(error) or type(error).__name__)
            return [{"ev": "fault", "reason": self.fault}]
        return [{"ev": "store_warning", "reason": w} for w in self.store.warnings]

    def _commit(self, events, wager_meters=None, new_key=None, state=None, program=None):
        if self.store.warns(len(events) + 1):
            # The log nearly full of records not collected: said in the
            # operation's own commit, so it is a record as signed as the rest.
            # A settlement's record stays its commit's last, which the side
            # wagers' copy names (store.py).
            warning = {"ev": "log_warning", "uncollected": self.store.uncollected()
                       + len(events) + 1, "capacity": self.store.capacity()}
            events.insert(len(events) if wager_meters is None else 0, warning)
        self._stamp(events)
        try:
            return self.store.commit(self.meter, events, wager_meters, new_key, state, program)
        except (OSError, MemoryError) as error:
            # Memory is now ahead of flash: refuse everything until a reboot re-reads it.
            self.fault = "store write failed: %s" % error
            raise Refused(self.fault) from None

    def _stamp(self, events):
        # Every record carries the board's time (a hit's is its LOCK's), and
        # "clock": "unset" while the clock reads before CLOCK_SET_FROM. A
        # board with no clock (a test table) stamps nothing.
        if self.clock is None:
            return
        now = int(self.clock())
        for event in events:
            if event.get("time") is None:
                event["time"] = now
            if event["time"] < CLOCK_SET_FROM:
                event["clock"] = "unset"

    def _ready(self):
        if self.fault is not None:
            raise Refused("fault: " + self.fault)

    def _writable(self, needs=None):
        # Before the meter moves: a refusal here leaves memory and flash alike.
        # needs: the room for uncollected records the operation must leave
        # (retention.py); 0 for a hit's validation and reset, which a full
        # log never refuses.
        self._ready()
        problem = self.store.room_problem()
        if problem is None and needs != 0:
            problem = self.store.log_problem(self.store.op_needs if needs is None else needs)
        if problem is not None:
            raise Refused(problem)

    def log_warning(self):
        # Whether the records not collected have reached the warning's share.
        if self.fault is not None or self.meter is None:
            return False
        return self.store.uncollected() >= retention.warn_at(self.store.capacity())

    def confirm_collected(self, seq, auth, key_held):
        # The log collected up to record `seq` (docs/host-link.md,
        # "Collected"): auth, the floor's collected_auth with the record key,
        # or None, taken only with the key switch held. Gives the mark.
        self._ready()
        store = self.store
        if type(seq) is not int or seq < 1:
            raise Refused("collected needs \"seq\": a record number, 1 or more")
        if seq > store.head_seq:
            raise Refused("record %d is not committed yet (the log's head is %d)"
                          % (seq, store.head_seq))
        if seq <= store.mark.seq:
            return store.mark.seq  # already collected: nothing written
        record_hash = store.record_hash(seq)
        if record_hash is None:
            raise Refused("record %d is no longer kept" % seq)
        if auth is None:
            if not key_held:
                raise Refused("an unsigned collected is taken only with the key switch held")
        else:
            if store.key is None:
                raise Refused("this board has no record key: confirm with the key switch "
                              "held and no \"auth\"")
            from .recordkey import collected_auth

            let_go("mystery.recordkey")  # loaded for this answer only
            if auth != collected_auth(store.key, store.key_id, seq, record_hash):
                raise Refused("the confirmation does not verify with record key %s"
                              % store.key_id)
        try:
            store.collect(seq)
        except (OSError, MemoryError) as error:
            # As a commit's: the flash may now differ from memory, so nothing
            # more until a reboot reads it (the old mark or the new).
            self.fault = "store write failed: %s" % error
            raise Refused(self.fault) from None
        return seq

    def prepare(self):
        # At a quiet moment before the next LOCK (the controller's, once a
        # round has locked and again when betting opens): what the next
        # commits would otherwise do inside their own time, done now. A
        # failure here is not this moment's: the next check measures again.
        if self.fault is not None or self.meter is None:
            return
        try:
            self.store.prepare_room()
        except OSError:
            pass

    def configure(self, name):
        self._writable()
        return self._commit(self.meter.configure(name))

    def reset(self):
        self._writable(0)
        return self._draw(self.meter.reset)

    def lock_round(self, seats):
        self._writable(self.store.lock_needs)
        when = None if self.clock is None else int(self.clock())
        return self._commit(self.meter.lock_round(seats, when))

    def validate(self, payment, employee=None, slip=None):
        self._writable(0)
        return self._commit(self.meter.validate(payment, employee, slip))

    def redraw(self):
        # The logged recovery from an exposed hit value (Meter.redraw).
        self._writable()
        return self._draw(self.meter.redraw)

    def _draw(self, operation):
        # An operation that draws a secret (a reset, a redraw): from the
        # generator, reseeded first from what the board gathers, its state
        # after the draw committed with the operation. A board not seeded
        # yet draws from its own source, as before the generator.
        if self.store.drbg is None:
            return self._commit(operation(self.random_bytes))
        drawing = self.store.drbg.copy()  # the store's stays as it was if this is refused
        drawing.reseed(*entropy.for_reseed(self.random_bytes))
        return self._commit(operation(drawing.generate), state=drawing)

    def generator(self):
        # For `status`: whether the generator draws the secrets yet.
        return "not_instantiated" if self.store.drbg is None else "instantiated"

    def seed(self, host_hex):
        # The technician's host's randomness, given in service mode: the
        # generator is instantiated from it and the board's own 256 bits,
        # or, already instantiated, reseeded from both. One logged commit;
        # neither the randomness nor the state is in any record or reply.
        self._writable()
        low, high = HOST_ENTROPY_HEX
        if not isinstance(host_hex, str) or not low <= len(host_hex) <= high \
                or len(host_hex) % 2 or host_hex.strip("0123456789abcdef"):
            raise Refused("seed needs \"entropy\": %d to %d lower-case hex digits, an even "
                          "number, from the host's own random source" % (low, high))
        host_bytes = binascii.unhexlify(host_hex)
        was = self.generator()
        if self.store.drbg is None:
            state = drbg.instantiate(*entropy.for_instantiation(self.random_bytes, host_bytes))
        else:
            state = self.store.drbg.copy()
            board_bytes, timing = entropy.for_reseed(self.random_bytes)
            state.reseed(board_bytes + host_bytes, timing)
        return self._commit([{"ev": "seed", "was": was}], state=state)

    def change_setting(self, name, value):
        # One of the table's settings, logged (Meter.change_setting). Asked
        # for mid-cycle, it is refused, and the refusal is itself a logged
        # operation: SettingRefused carries its record for the host.
        self._writable()
        refusal = self.meter.setting_refusal(name, value)
        if refusal is not None:
            records = self._commit([refusal])
            raise SettingRefused(self.meter.mid_cycle("setting %s" % name), records)
        return self._commit(self.meter.change_setting(name, value))

    def record_event(self, event):
        # A significant event of the board (service mode entered or left,
        # the clock set, a fault raised or cleared): a log record of its
        # own, no meter moved. [] on a new board, as for a start: its first
        # record is still to come (a key given at installation, so no record
        # of a keyed table goes unsigned).
        self._writable()
        if self._new_board():
            return []
        return self._commit([event])

    def provision(self, key_text):
        # The board's record key (recordkey.py), given or replaced: one
        # logged operation, the `key` record, signed with the key it
        # replaces. The key itself is in no record and no message.
        self._writable()
        from . import recordkey  # loaded for the key's check and id, then let go

        try:
            key = recordkey.parse_key(key_text)
            kid = recordkey.key_id(key)
        except ValueError as error:
            raise Refused(str(error)) from None
        finally:
            let_go(recordkey.__name__)
        if kid == self.store.key_id:
            raise Refused("record key %s is already in force" % kid)
        event = {"ev": "key", "key_id": kid, "was": self.store.key_id}
        return self._commit([event], new_key=(key, kid))

    def record_start(self, program, cause):
        # The `start` record of each start (table/controller.py): the
        # program's digest and the reset's cause; no meter moves. [] on a new
        # board, as for the REPL (open_repl): its first record is still to
        # come, and its starts until then play nothing.
        self._writable()
        if self._new_board():
            return []
        records = self._commit([{"ev": "start", "program": program, "cause": cause}])
        self.started = records[0]["seq"]
        return records

    def _new_board(self):
        # A store that holds no record, no key and no configuration yet.
        store = self.store
        return store.head_seq == 0 and store.key_id is None and self.meter.config is None

    def accept_program(self, kind, digest):
        # The program this board runs, accepted by a technician in service
        # mode (table/program_check.py): one logged operation, the `program`
        # record naming the digest accepted before (None: none) and this one.
        # Only with a record key in force, so the record is signed.
        self._writable()
        store = self.store
        if store.key is None:
            raise Refused("a program is accepted only with a record key in force, so its "
                          "record is signed: give the board its key first (provision)")
        if digest == store.program:
            raise Refused("this program (%s) is already the accepted one" % digest)
        event = {"ev": "program", "was": store.program, "digest": digest, "kind": kind}
        return self._commit([event], program=digest)

    def open_repl(self):
        # The `repl` record, before the port goes to the REPL; [] on a new
        # board, whose store holds no record, no key and no hit value yet: there
        # is nothing for the REPL to expose, and its first record is still to come.
        self._writable()
        if self._new_board():
            return []
        return self._commit(self.meter.open_repl())

    def head(self, nonce):
        # The log's head as the store holds it, the records its bounded log
        # dropped (the oldest kept is the next), and with a key their
        # authenticator over the asker's nonce (recordkey.head_auth).
        store = self.store
        dropped = store.dropped()
        answer = {"seq": store.head_seq, "hash": store.head_hash, "dropped": dropped,
                  "nonce": nonce}
        if store.key is not None:
            from .recordkey import head_auth

            let_go("mystery.recordkey")  # loaded for this answer only
            answer["key_id"] = store.key_id
            answer["auth"] = head_auth(store.key, store.head_seq, store.head_hash, nonce,
                                       dropped)
        return answer

    def settle_round(self, data):
        # A round's side wagers settled by the table's rules, and recorded
        # with the wager meters in one commit: (result, log records). A round
        # that cannot be settled raises Refused, and nothing is recorded.
        self._writable()
        settlement, table_rules, wagers = _settlement()
        try:
            round_, result = settlement.settle(data, table_rules.in_force(self.meter.setting))
            counted = self.store.wagers.copy() if self.store.wagers else wagers.WagerMeters()
            counted.add(round_, result)
            event = settlement.record(round_, result, self.meter.round)
        except MemoryError:  # nothing written yet: the round is refused, play goes on
            raise Refused("no memory free to settle this round now") from None
        return result, self._commit([event], counted)

    def wager_meters(self):
        self._ready()
        counted = self.store.wagers
        if counted is None:
            return {"settled": 0, "wagers": {}}
        return {"settled": counted.settled, "wagers": counted.public()}

    def meters(self):
        self._ready()
        meters = public_meters(self.meter)
        meters["log_seq"] = self.store.head_seq
        meters["log_hash"] = self.store.head_hash  # anchors an exported log's end
        # Records dropped before they were collected (a power cut's or a
        # fault's cost), all the log removed, and the collection: up to
        # where, how many wait, of what room.
        meters["log_dropped"] = self.store.lost()
        meters["log_removed"] = self.store.dropped()  # collected or not: the oldest kept is next
        meters["log_collected"] = self.store.mark.seq
        meters["log_uncollected"] = self.store.uncollected()
        meters["log_capacity"] = self.store.capacity()
        meters["key_id"] = self.store.key_id  # the record key in force; None: unsigned
        meters["side_wagers"] = self.wager_meters()
        return meters

    def log_since(self, seq):
        # Committed records only, in every state (Store.read_log).
        return self.store.read_log(seq)

    def log_export(self, seq):
        # The same, as a host's export reads it a few at a time while the
        # table plays on (Store.export_log): None for a record read before seq.
        return self.store.export_log(seq)


def load_settlement():
    # The settlement loaded before the first round (table.app.ready_for_rounds).
    # Where it cannot be loaded now, the first round tries again and says why.
    try:
        _settlement()
    except Refused:
        pass


def _settlement():
    # The settlement's modules (the evaluator, the paytables), loaded once.
    # Where the heap cannot hold them, the round is refused and the table
    # plays on.
    try:
        from . import settlement, table_rules, wagers
    except MemoryError:
        raise Refused("no memory free to load the settlement: rounds cannot be settled on "
                      "this board") from None
    return settlement, table_rules, wagers
