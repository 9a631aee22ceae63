# The table: a state machine over the seats' bet sensors, the dealer's LOCK
# button and the floorperson's key switch, driving the bet and jackpot lights
# and the LED meter, with every meter operation committed by the Mystery
# bonus before its event leaves the board.
#
#   betting  --LOCK-->  locked (contributions committed; a hit -> hit_pending)
#   locked   --all progressive spots clear for 250 ms, or LOCK held 2 s--> betting
#   hit_pending --key--> validated, paid, reset --> locked
#   betting  --key held--> service (configuration; the redraw of a hit value
#                          a failed commit exposed) --key released--> betting
#
# The controller's compartment door (door.py), where the board has its
# switch: opening and closing it are records of the log, and LOCK is refused
# while it is open. A round already locked plays out and a pending hit is
# validated and paid as ever: their money was committed before the door
# opened (docs/mystery.md, "The door").
#
# A fault is not a step of play: while the store or the board is in a fault
# (an expander off the bus, seats that disagree with the qualify declaration)
# the state is fault, whatever play was in, and nothing is played until a
# technician clears the cause and restarts the board.
#
# When LOCK and the key change in the same tick, a key released returns the
# table to betting first, so the LOCK then locks. A key turned loses to the
# LOCK, because a round's wagers are never left uncounted: the round locks and
# the turn is refused with an event, to be made again. A LOCK that is itself
# refused locks nothing, so the key then takes the table to service mode.
#
# A restart (power cut, watchdog, Ctrl-C and Ctrl-D) forgets the round in
# play, so a chip already on its spot when the controller starts may have been
# charged before: it does not qualify until it is lifted and placed again, and
# its bet light blinks meanwhile so the dealer sees it will not count.
from micropython import const

from mystery import configs, settings
from mystery.bonus import SettingRefused
from mystery.configs import MICROS_PER_CENT
from mystery.meter import (
    AWAITING_RESET,
    PAYMENTS,
    PENDING,
    PENDING_SEAT,
    UNCONFIGURED,
    check_validation_text,
)
from mystery.money import cents_text
from mystery.refusal import Refused
from uth.let_go import let_go
from uth.seats import MAX_SEAT

from . import expiry, meter_text
from .display_watch import DisplayWatch
from .inputs import FALL, RISE, Debounced, SeatSensors
from .turns import Rotation, Turns

# The states by the names `status` reports; the host tools import them.
BETTING = "betting"
LOCKED = "locked"
HIT_PENDING = "hit_pending"
SERVICE = "service"
FAULT = "fault"
NOT_CONFIGURED = "unconfigured"

SETTLE_MS = const(30)
OPEN_HOLD_MS = const(2000)  # LOCK held this long reopens betting by hand
# Every progressive spot clear this long ends the round: its chips were
# settled. A shorter dropout is a sensor's flicker, and the round stays locked,
# so that the next LOCK cannot charge the same chips again.
_CLEAR_MS = const(250)
_BLINK_MS = const(250)  # a chip from before the restart: its bet light blinks at 2 Hz
DOOR_OPEN_REFUSAL = "no LOCK while the controller's door is open: close it"
_KEY_LOST_TO_LOCK = ("key turn waits: LOCK was pressed in the same instant and locked the "
                     "round; service mode begins when the round ends, if the key is still "
                     "held, or turn the key again then")
# A host's change refused while a round is locked and the key already held.
_WAITS_FOR_ROUND = ": the key is held, and service mode begins when the round in play ends"


class Table:
    # seats: the board's wiring (inputs.Seat), read through the table's own
    # debounced sensors once started; io: the seats' expanders
    # (seat_expanders.py) or None; qualify: the board's declaration
    # (qualify.py); today: the board's date for expiry.
    def __init__(self, bonus, seats, lock_pin, key_pin, display, emit, io=None,
                 qualify=None, today=None, door_pin=None):
        self.bonus = bonus
        self.seats = seats
        self.lock_pin = lock_pin
        self.key_pin = key_pin
        self.display = display
        self.emit = emit  # takes one event dict for the host link
        self.today = today  # the board's date as "YYYY-MM-DD" (or None); None: no clock
        # The debounced inputs, made by start(): a SeatSensors a seat, the LOCK, the key.
        self.sensors = []
        self.lock = None
        self.key = None
        self.door_pin = door_pin  # 1 while the compartment is open; None: no switch
        self.door = None  # its Door, made by start()
        self.mode = BETTING  # where play is; a fault overrides it (state)
        self.payment = "table_inventory"
        # [employee, slip] the host gave for the pending hit, for its key
        # turn's validated record; None: not given (recorded as null).
        self.validation = None
        self.locked_in = []  # seats whose chips were locked this round
        self.stale_chips = []  # seats whose chip has been on its spot since start()
        self.shown = None
        self.lit = (0, 0)  # the bet and jackpot lights last driven, a bit a seat
        self.io = io
        self.qualify = qualify
        self.board_fault = None  # why the board's seats cannot be trusted
        self.warning = None  # the qualify declaration's, at every boot and in status
        self.io_live = False  # the expanders are read and written each tick
        # Whether the LED meter acknowledges what it is sent: LOCK is
        # refused while it does not (display_watch.py).
        self.display_watch = DisplayWatch(display, 0)
        # The board's garbage collection (app.build passes the heap watch's),
        # run at the table's quiet moments (_quiet); None: none.
        self.collect = None
        # The program this board runs, the reader app.build gives a board that
        # names it (program.py; None: no check), and what the start's check
        # found, (kind, digest, verdict) (program_check.py, loaded for the
        # check and let go: play never needs it in the heap).
        self.program = None
        self.program_found = None
        self.program_fault = None  # why the program may not play; an acceptance clears it
        self.program_check_ms = None  # what the start's check took, on the board's clock
        self.ticks_ms = None  # the board's millisecond clock (app.build), to time that check
        self.reset_cause = None  # the port's machine.reset_cause() by name; None: not reported

    @property
    def state(self):
        # FAULT while the store or the board is in a fault, which only a
        # restart clears; else where play is.
        if self.bonus.fault is not None or self.board_fault is not None \
                or self.program_fault is not None:
            return FAULT
        return self.mode

    def fault(self):
        # Why the table is in a fault (the store's first), or None.
        return self.bonus.fault or self.board_fault or self.program_fault

    def _check_qualify(self):
        # The seats' wiring against the board's declaration, once a start
        # (qualify.py, let go after: play needs only the declaration's name).
        from . import qualify

        fault, self.warning = qualify.check(self.seats, self.qualify)
        self.qualify = self.qualify or qualify.BOTH_SPOTS
        let_go(qualify.__name__)
        return fault

    # ---- start-up ----

    def start(self, now):
        # The expanders start first, because a debouncer takes its first read as settled.
        fault = self._check_qualify()
        self.io_live = self.io is not None and fault is None
        if self.io_live:
            fault = self.io.start()
        self.sensors = [SeatSensors(seat, SETTLE_MS, now) for seat in self.seats]
        self.lock = Debounced(self.lock_pin, SETTLE_MS, now)
        self.key = Debounced(self.key_pin, SETTLE_MS, now)
        if self.door_pin is not None:
            from .door import Door  # loaded only where the board has a door switch

            self.door = Door(self.door_pin, SETTLE_MS, now)
        self.stale_chips = [seat.number for seat in self.sensors if seat.bet.state]
        self.rotation = Rotation(meter_text.TURNS_MS, now)
        self.blink = Turns(_BLINK_MS, now)
        for event in self.bonus.boot():
            self.emit(event)
        self._check_program()
        self._record_start()
        if self.warning is not None:
            self.emit({"ev": "warning", "reason": self.warning})
        self._resume()
        self._warn_of_expiry()
        self._board_fault(fault)
        if self.door is not None and self.door.open:  # opened while the board was off
            self._significant({"ev": "door", "state": "open"})
        self._refresh(now)
        self._write_io()

    def _resume(self):
        # Pick up where the last power cut left the meter (a program not
        # accepted touches nothing until it is).
        if self.bonus.fault is not None or self.program_fault is not None:
            return
        phase = self.bonus.meter.phase
        if phase == UNCONFIGURED:
            self.mode = NOT_CONFIGURED
        elif phase == PENDING:
            self.mode = HIT_PENDING
        elif phase == AWAITING_RESET:
            self._operate(self.bonus.reset)  # a validation committed; its reset did not
            self.mode = BETTING
        else:
            self.mode = BETTING

    def _check_program(self):
        # Before the meter is picked up: a store in a fault has no accepted digest to trust.
        if self.program is None or self.bonus.fault is not None:
            return
        from . import program_check

        self.program_found, event, self.program_check_ms = program_check.check(
            self.program, self.bonus.store.program, self.ticks_ms)
        let_go(program_check.__name__)
        if event is not None:
            self.program_fault = event["reason"]
            event["source"] = "program"
            self._significant(event)

    def _record_start(self):
        # Each start of a board that names its program is a record: the
        # program's digest (None: unreadable) and the reset's cause. A store
        # in a fault takes none; a full flash refuses it, as any record.
        if self.program_found is None or self.bonus.fault is not None:
            return
        self._operate(self.bonus.record_start, self.program_found[1], self.reset_cause)

    # ---- the loop ----

    def idle(self):
        # Nothing a restart would cut short: betting, no chip on any spot.
        if self.state != BETTING:
            return False
        for seat in self.sensors:
            if seat.bet.state:
                return False
        return True

    def tick(self, now):
        if self.io_live:
            self._board_fault(self.io.read())
        lock_edge = self.lock.poll(now)
        key_edge = self.key.poll(now)
        if self.door is not None:  # before the handler: a LOCK in the same tick is refused
            change = self.door.poll(now)
            if change is not None:
                self._significant({"ev": "door", "state": change})
        for seat in self.sensors:
            if seat.poll(now) == FALL and seat.number in self.stale_chips:
                self.stale_chips.remove(seat.number)  # lifted: its next placing counts
        handler = _HANDLERS.get(self.state)
        if handler is not None:
            handler(self, now, lock_edge, key_edge)
        self._refresh(now)
        self._write_io()

    def _write_io(self):
        # After a fault, one last write puts the lights out if the bus still
        # lets it; then the bus is left alone, since each try on a stuck bus
        # waits out its timeout.
        if self.io_live:
            self._board_fault(self.io.write())
            self.io_live = self.board_fault is None

    def _board_fault(self, reason):
        # The first reason the board's seats cannot be trusted is the board's
        # fault, reported once; None: nothing wrong.
        if reason is not None and self.board_fault is None:
            self.board_fault = reason
            self._significant({"ev": "fault", "source": "seats", "reason": reason})

    def _betting(self, now, lock_edge, key_edge):
        # A key turned with a LOCK that was itself refused (a flash full, an
        # exposed value) is not lost: it takes the table to service mode,
        # where that refusal is mended.
        if lock_edge == RISE and self._lock_round():
            if key_edge == RISE:
                self.emit({"ev": "refused", "reason": _KEY_LOST_TO_LOCK})
        elif key_edge == RISE:
            self._enter_service()

    def _locked(self, now, lock_edge, key_edge):
        # Further LOCK presses do nothing: a round locks once.
        chips_gone = True
        for seat in self.sensors:
            if seat.bet.state or seat.bet.held_ms(now) < _CLEAR_MS:
                chips_gone = False
        held = self.lock.state and self.lock.held_ms(now) >= OPEN_HOLD_MS
        if chips_gone or held:
            self.locked_in = []
            # A key turned during the round waits for its end: still held
            # then, it takes the table to service mode, as the person
            # holding it meant.
            self.mode = BETTING
            if self.key.state:
                self._enter_service()
            self._quiet()

    def _hit_pending(self, now, lock_edge, key_edge):
        employee, slip = self.validation or (None, None)
        if key_edge == RISE and self._operate(self.bonus.validate, self.payment, employee,
                                              slip):
            self.validation = None  # it went with this hit
            # The hit's round is still in play, its chips on their spots,
            # whether or not the reset commits: a reset refused (a full flash)
            # is owed, and the next LOCK tries it first.
            self._operate(self.bonus.reset)
            self.mode = LOCKED

    def _service(self, now, lock_edge, key_edge):
        if key_edge == FALL:
            self.mode = NOT_CONFIGURED if self._unconfigured() else BETTING
            self._significant({"ev": "service", "entered": False})
            if self.mode == BETTING and lock_edge == RISE:
                self._lock_round()  # pressed as the key came back: betting, so it locks

    def _not_configured(self, now, lock_edge, key_edge):
        if key_edge == RISE:
            self._enter_service()

    def _enter_service(self):
        self.mode = SERVICE
        self._significant({"ev": "service", "entered": True})

    # ---- meter operations ----

    def _commit(self, operation, *args):
        # The one way the table runs a committed operation of the bonus: its
        # refusal is raised to the caller, and a refusal the store caused
        # (bonus.fault set) is the store's fault, reported here as it happens.
        try:
            return operation(*args)
        except Refused:
            if self.bonus.fault is not None:
                self.emit({"ev": "fault", "reason": self.bonus.fault})
            raise

    def _operate(self, operation, *args):
        # An operation of the table's own inputs (LOCK, key): its records go
        # out as events, a refusal as a "refused" event; None when refused.
        try:
            records = self._commit(operation, *args)
        except Refused as error:
            if self.bonus.fault is None:
                self.emit({"ev": "refused", "reason": str(error)})
            return None
        for record in records:
            for event in _host_events(record):
                self.emit(event)
        return records

    def _host_operation(self, operation, *args):
        # A host command's operation: its records go out as events; a refusal
        # goes back to the command as its error reply.
        records = self._commit(operation, *args)
        for record in records:
            self.emit(record)
        return records

    def _lock_round(self):
        # True when the round locked; a refusal has been reported.
        if self.display_watch.fault is not None:  # players would not see the meter move
            self.emit({"ev": "refused", "reason": "no LOCK while the " + self.display_watch.fault})
            return False
        if self.door is not None and self.door.open:
            self.emit({"ev": "refused", "reason": DOOR_OPEN_REFUSAL})
            return False
        if self.bonus.meter.phase == AWAITING_RESET and self._operate(self.bonus.reset) is None:
            return False
        wager = self.bonus.meter.progressive_wager()
        seats = [(seat.number, seat.has_uth_wager(), wager if self._counts(seat) else 0)
                 for seat in self.sensors]
        records = self._operate(self.bonus.lock_round, seats)
        if records is None:
            return False
        self.locked_in = [seat for seat, _, cents in records[0]["contributions"]]
        self.mode = HIT_PENDING if self.bonus.meter.phase == PENDING else LOCKED
        self._quiet()  # its "locked" is out: nothing waits on the table now
        return True

    def _quiet(self):
        # A moment nothing waits on the table (a round just locked, betting
        # just opened): the garbage collected and the store's room measured
        # now if it soon would be, so neither lands inside the next LOCK's
        # time (docs/benchmarks.md, "LOCK with the record key").
        if self.collect is not None:
            self.collect()
        self.bonus.prepare()

    def _counts(self, seat):
        return seat.bet.state and seat.number not in self.stale_chips

    def _unconfigured(self):
        return self.bonus.meter is None or self.bonus.meter.phase == UNCONFIGURED

    # ---- what the host may ask ----

    def in_service(self, refusal, how=""):
        # Service mode (the key held) is the table's to check, for every
        # command that changes how the table plays: refused with `refusal`
        # in any other state, and `how` to get there; a key already held
        # through a round waits for its end, which the refusal says instead.
        if self.state != SERVICE:
            if self.state == LOCKED and self.key.state:
                how = _WAITS_FOR_ROUND
            raise Refused(refusal + how)

    def configure(self, name):
        self.in_service("configuration changes only in service mode")
        records = self._host_operation(self.bonus.configure, name)
        self._operate(self.bonus.reset)
        self._warn_of_expiry()
        return records

    def change_setting(self, name, value):
        # One of the table's settings (mystery/settings.py): a logged operation.
        # Mid-cycle its refusal is logged, and goes out as an event too.
        self.in_service("settings change only in service mode")
        try:
            return self._host_operation(self.bonus.change_setting, name, value)[0]
        except SettingRefused as refusal:
            for record in refusal.records:
                self.emit(record)
            raise

    def redraw(self):
        # The service-mode recovery from an exposed hit value: one logged
        # operation that reveals the old value and publishes a new commitment.
        self.in_service("a redraw only in service mode")
        return self._host_operation(self.bonus.redraw)[0]

    def provision(self, key_text):
        # The record key, given at the table (docs/host-link.md, "Record
        # keys"): its `key` record.
        self.in_service("a record key is given only in service mode: hold the key switch")
        return self._host_operation(self.bonus.provision, key_text)[0]

    def seed(self, host_hex):
        # The generator's seeding from the host's randomness (mystery/bonus.py): its `seed` record.
        self.in_service("the generator is seeded only in service mode: hold the key switch")
        return self._host_operation(self.bonus.seed, host_hex)[0]

    def accept_program(self):
        # The program running accepted by a technician (program_check.py):
        # in service mode, or with the key held in the fault its check
        # raised, which the acceptance clears. Its `program` record.
        if self.program is None:
            raise Refused("this board names no program to accept")
        if not (self.state == FAULT and self.key.state and self.program_fault is not None):
            self.in_service("a program is accepted only in service mode",
                            ": hold the key switch")
        kind, digest, _ = self.program_found or (None, None, None)
        if digest is None:
            raise Refused("the program could not be read at start: there is nothing to accept")
        record = self._host_operation(self.bonus.accept_program, kind, digest)[0]
        from . import program_check

        judged = program_check.verdict(digest, self.bonus.store.program)
        self.program_found = (kind, digest, judged)
        let_go(program_check.__name__)
        if self.program_fault is not None:
            self.program_fault = None
            self._resume()
            if self.key.state and self.mode in (BETTING, NOT_CONFIGURED):
                self._enter_service()  # the key held all along: service mode, as it means
        return record

    def clock_set(self, was, new, by):
        # The board's clock set (hostlink.py): a `clock` record with what it
        # read before and after, stamped with the new, and by whom: "key"
        # in service mode, "floor" by the floor's signed command.
        self._significant({"ev": "clock", "was": list(was), "new": list(new), "by": by})

    def open_repl(self):
        # The technician's way to MicroPython's REPL (docs/host-link.md, "The
        # REPL"), only with the key switch held: its `repl` record first,
        # which marks a live hit value exposed; [] when the store takes no
        # record (a new board's; or a store in a fault, which the REPL is
        # there to mend, with the key held all the same).
        if self.state == FAULT and self.key.state:
            if self.bonus.fault is not None:
                return []
        else:
            self.in_service("the REPL opens only in service mode", ": hold the key switch")
        return self._host_operation(self.bonus.open_repl)

    def settle_round(self, data):
        # A round's side wagers, sent by a dealer terminal or a shoe: settled
        # by the table's rules and recorded (MysteryBonus.settle_round); gives
        # (result, the record's log number). Not in service mode, where the
        # rules themselves may be changing.
        if self.state == SERVICE:
            raise Refused("no round is settled in service mode")
        self._not_in_fault("no round is settled")
        result, records = self._commit(self.bonus.settle_round, data)
        for record in records[:-1]:  # a log warning before it: an event (the round is the reply)
            self.emit(record)
        return result, records[-1]["seq"]

    def confirm_collected(self, seq, auth):
        # The log collected up to record `seq` (MysteryBonus.confirm_collected):
        # unsigned only in service mode, the key switch held.
        return self._commit(self.bonus.confirm_collected, seq, auth, self.state == SERVICE)

    def _not_in_fault(self, what):
        # A fault of the store or of the seats stops play until a restart.
        if self.state == FAULT:
            raise Refused("the table is in a fault (%s): %s until it is cleared and the "
                          "board restarted" % (self.fault(), what))

    def status(self):
        meter = self.bonus.meter
        status = {"state": self.state, "display": self.shown,
                  "fault": self.fault(),
                  "qualify": self.qualify,
                  "payment": self.payment, "locked_in": self.locked_in,
                  "stale_chips": list(self.stale_chips), "validation": self._validation(),
                  "lights": {"bet": _seats_lit(self.lit[0]), "jackpot": _seats_lit(self.lit[1])},
                  "key_id": self.bonus.store.key_id, "drbg": self.bonus.generator(),
                  "display_fault": self.display_watch.fault,
                  "display_sensed": self.display_watch.sensed, "door": self._door_state()}
        if self.program is not None:
            kind, digest, verdict = self.program_found or (None, None, None)
            status["program"] = {"check": verdict, "kind": kind, "digest": digest,
                                 "accepted": self.bonus.store.program,
                                 "check_ms": self.program_check_ms}
        if self.warning is not None:
            status["warnings"] = [self.warning]
        if meter is not None and self.bonus.fault is None:
            # exposed: why LOCK is refused until a service-mode redraw.
            status.update(phase=meter.phase, config=meter.config, cycle=meter.cycle,
                          round=meter.round, commitment=meter.commitment,
                          exposed=meter.exposed, settings=settings.in_force(meter.settings))
        status["rules"] = self.rules()
        return status

    # ---- the temporary sections the table's rules rest on ----

    def rule_sections(self):
        # The sections in force on this table: 653b.1 once a configuration is.
        meter = self.bonus.meter
        if self.bonus.fault is not None or meter is None or meter.config is None:
            return []
        return [configs.SECTION]

    def rules(self):
        # Their dates and, by the board's clock, whether they have expired.
        return expiry.report(self.rule_sections(), self.date())

    def date(self):
        # The board's date, "YYYY-MM-DD", for judging expiry (uth/sections.py); None: no clock.
        return None if self.today is None else self.today()

    def _warn_of_expiry(self):
        # At boot and after a configuration: warned of, never refused.
        event = expiry.warning_event(self.rule_sections(), self.date())
        if event is not None:
            self.emit(event)

    # ---- the pending hit's validation and payment ----

    def set_validation(self, employee, slip):
        # Who validates the pending hit and its jackpot slip, for the key
        # turn to record; given again, it replaces the last.
        self._not_in_fault("no validation is taken")
        if self.state != HIT_PENDING:
            raise Refused("no hit is pending: a validation's employee and slip are given "
                          "between the hit and the key turn")
        check_validation_text("employee", employee)
        check_validation_text("slip", slip)
        self.validation = [employee, slip]

    def _validation(self):
        if self.validation is None:
            return None
        return {"employee": self.validation[0], "slip": self.validation[1]}

    def set_payment(self, method):
        if method not in PAYMENTS:
            raise Refused("payment must be one of %s" % ", ".join(PAYMENTS))
        self.payment = method

    # ---- outputs ----

    def _refresh(self, now):
        pending_seat = None
        if self.state == HIT_PENDING:
            pending_seat = self.bonus.meter.pending[PENDING_SEAT]
        blink_on = self.blink.poll(now)
        bet_lit = jackpot_lit = 0  # bit n-1: seat n's light, for status (no allocation a tick)
        state = self.state
        for seat in self.sensors:
            if state == BETTING:
                lit = blink_on if seat.number in self.stale_chips else seat.bet.state
            elif state in (LOCKED, HIT_PENDING):
                lit = seat.number in self.locked_in
            else:
                lit = 0
            seat.wiring.bet_light.value(1 if lit else 0)
            seat.wiring.jackpot_light.value(1 if seat.number == pending_seat else 0)
            if lit:
                bet_lit |= 1 << (seat.number - 1)
            if seat.number == pending_seat:
                jackpot_lit |= 1 << (seat.number - 1)
        self.lit = (bet_lit, jackpot_lit)
        text = self._display_text(now)
        answer = None  # whether the display acknowledged; None: not asked, or it cannot tell
        if text != self.shown:
            self.shown = text
            try:
                answer = self.display.show(text)
            except ValueError as error:  # a text the display cannot show: say so, play on
                self.emit({"ev": "display_error", "text": text, "reason": str(error)})
        elif self.display_watch.due(now):
            answer = self.display.check()
        reason = self.display_watch.fault
        change = self.display_watch.heard(answer, now)
        if change is not None:
            self._display_fault(change, self.display_watch.fault or reason)

    def _display_fault(self, change, reason):
        # Raised or cleared: a `fault` or `fault_cleared` record in the log.
        self._significant({"ev": "fault" if change == "raised" else "fault_cleared",
                           "source": "display", "reason": reason})

    def _door_state(self):
        if self.door is None:
            return None
        return "open" if self.door.open else "closed"

    def _significant(self, event):
        # A significant event (a fault raised or cleared, the door, service
        # mode entered or left, the clock set): a record in the log, sent as
        # its event; where the log takes no record (a store in a fault, a
        # full flash, a new board's first record still to come), the event alone.
        records = None
        if self.bonus.fault is None and self.bonus.meter is not None:
            try:
                records = self._commit(self.bonus.record_event, event)
            except Refused:
                pass  # (a store's fault is reported by _commit; a full flash refuses LOCK)
        for record in records or (event,):
            self.emit(record)

    def _display_text(self, now):
        # The log's warning takes a turn of its own while it lasts.
        turns = meter_text.TURNS_WARNED_MS if self.bonus.log_warning() else meter_text.TURNS_MS
        if self.rotation.periods_ms is not turns:
            self.rotation = Rotation(turns, now)
        turn = self.rotation.poll(now)  # polled every tick, shown or not
        state = self.state
        if state == FAULT:
            return meter_text.FAULT
        if state == SERVICE:
            return meter_text.SERVICE
        if state == NOT_CONFIGURED:
            return meter_text.UNCONFIGURED
        cents = self.bonus.meter.display()
        if state == HIT_PENDING:
            return cents_text(cents)  # the award, steady until validated
        maximum = configs.get(self.bonus.meter.config).maximum // MICROS_PER_CENT
        return meter_text.in_turn(turn, cents, maximum)


_HANDLERS = {
    BETTING: Table._betting,
    LOCKED: Table._locked,
    HIT_PENDING: Table._hit_pending,
    SERVICE: Table._service,
    NOT_CONFIGURED: Table._not_configured,
}


def _seats_lit(bits):
    # The seat numbers whose bit is set, as the lights were last driven.
    return [n + 1 for n in range(MAX_SEAT) if bits >> n & 1]


def _host_events(record):
    # The log's round record reaches the host as "locked" plus one
    # "contribution" per seat; the other records go as they are.
    if record["ev"] != "round":
        yield record
        return
    yield {"ev": "locked", "round": record["round"], "seq": record["seq"],
           "meter": record["meter"]}
    for seat, wager, amount in record["contributions"]:
        yield {"ev": "contribution", "round": record["round"], "seat": seat,
               "wager": wager, "amount": amount}
