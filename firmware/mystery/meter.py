# The Must-Hit-By Mystery meter (58 Pa. Code 653b.1), as rules.md decides it:
# contributions at lockout in seat order, the hit when a contribution takes
# the meter above the secret hit value, the award capped at the maximum with
# the rest carried into the next cycle, the pending state until a floorperson
# validates, payment, reset to the minimum and a fresh hit value.
#
# Money is integer micro-dollars. Always: seeded + contributed = paid + meter
# + retained (during a pending hit the meter still holds the unpaid award;
# retained is what a reset to exactly the minimum kept out of the next cycle).
# Each operation returns the events it caused; only a hit's event reveals the
# hit value, and only once its cycle is over (or a redraw's, once a failed
# commit exposed it and the value is replaced).
from micropython import const

from uth.seats import MAX_SEAT

from . import configs, hitvalue, settings
from .configs import MICROS_PER_CENT
from .refusal import Refused

UNCONFIGURED = "unconfigured"
AWAITING_RESET = "awaiting_reset"
RUNNING = "running"
PENDING = "pending"
PHASES = (UNCONFIGURED, AWAITING_RESET, RUNNING, PENDING)
PAYMENTS = ("table_inventory", "jackpot_slip")
LAST_HITS = const(25)
# The fields of Meter.pending, a hit awaiting validation, kept so in the
# meter record: [seat, award, cycle, round, time].
PENDING_SEAT = const(0)
PENDING_AWARD = const(1)
PENDING_CYCLE = const(2)
PENDING_ROUND = const(3)
PENDING_TIME = const(4)
# The fields of each of Meter.last_hits, kept so in the hits copy:
# [seat, award, cycle, round, payment, time].
HIT_SEAT = const(0)
HIT_AWARD = const(1)
HIT_CYCLE = const(2)
HIT_ROUND = const(3)
HIT_PAYMENT = const(4)
HIT_TIME = const(5)
# The validating employee's number and the jackpot slip's (653b.1(c)(5)(ii)):
# short printable text, as a badge or a slip carries it.
VALIDATION_TEXT_MAX = const(24)


# Why play stops on a cycle whose value an unfinished operation wrote out.
EXPOSED = ("no round: this cycle's hit value was written to flash by an operation that did not "
           "commit; in service mode, redraw it ({\"cmd\": \"redraw\"})")


def _refuse_unless(condition, message):
    if not condition:
        raise Refused(message)


def _refused(message, *args):
    # Formatted only when a check fails: a round checks every seat, and
    # nearly every check passes.
    return Refused(message % args)


def check_validation_text(what, text):
    # None (not given), or 1 to VALIDATION_TEXT_MAX printable ASCII characters.
    if text is None:
        return
    if not (type(text) is str and 0 < len(text) <= VALIDATION_TEXT_MAX and text.strip() == text
            and all(" " <= c <= "~" for c in text)):
        raise _refused("%s must be 1 to %d printable characters, no space at either end",
                       what, VALIDATION_TEXT_MAX)


def _qualifying(config, seats):
    # seats: (seat, has_uth_wager, progressive_cents); checked whole, then
    # the qualifying ones in seat order (653b.1(c)(1), rules.md).
    seen = []
    for seat, uth_wager, cents in seats:
        if not (type(seat) is int and 1 <= seat <= MAX_SEAT and seat not in seen):
            raise _refused("bad or repeated seat %r", seat)
        if not (uth_wager is True or uth_wager is False):
            raise _refused("seat %d: bad UTH flag", seat)
        if not (type(cents) is int and cents >= 0):
            raise _refused("seat %d: progressive wager must be whole cents", seat)
        seen.append(seat)
    chosen = [s for s in seats if s[1] and s[2] >= config.min_wager_cents]
    return sorted(chosen, key=lambda s: s[0])


class Meter:
    def __init__(self):
        self.config = None
        self.phase = UNCONFIGURED
        self.meter = 0
        self.contributed = 0
        # The qualifying wagers counted and the amount they wagered, in
        # micro-dollars as the other money meters (13:69E-1.39A(b)(1)).
        self.qualifying_wagers = 0
        self.wagered = 0
        self.seeded = 0
        self.paid = 0
        self.retained = 0
        self.hits = 0
        self.cycle = 0
        self.round = 0
        self.reset_round = 0  # the round count when the cycle began
        self.reset_meter = 0  # the meter when the cycle began
        # The live hit value was written to flash by an operation that never
        # committed (store.py): no round until a redraw replaces it.
        self.exposed = False
        self.commitment = ""
        self.pending = None  # [seat, award, cycle, round, time] until validated (PENDING_*)
        self.last_hits = []  # [seat, award, cycle, round, payment, time] each (HIT_*), newest last
        self._hit_value = 0  # secret while its cycle lasts
        self._salt = ""
        # The table's settings that differ from their defaults (settings.py).
        self.settings = {}

    def setting(self, name):
        return settings.value(self.settings, name)

    def progressive_wager(self):
        # In cents: what the table counts each progressive chip as
        # (653b.1(c)(2)), the configuration's minimum unless set.
        cents = self.setting("wager_cents")
        return configs.get(self.config).min_wager_cents if cents is None else cents

    def balanced(self):
        return self.seeded + self.contributed == self.paid + self.meter + self.retained

    def display(self):
        # What the LED meter shows, in cents: the award while a hit is pending.
        if self.phase == PENDING:
            return self.pending[PENDING_AWARD] // MICROS_PER_CENT
        return self.meter // MICROS_PER_CENT

    def at_reset(self):
        # The meter is at a reset: a new board, a validated hit not yet reset,
        # or a cycle that has seen no round since its reset.
        return self.phase in (UNCONFIGURED, AWAITING_RESET) or (
            self.phase == RUNNING and self.round == self.reset_round)

    def configure(self, name):
        _refuse_unless(self.at_reset(), "configuration changes only with the meter at a reset")
        try:
            config = configs.get(name)
        except ValueError as error:
            raise Refused(str(error)) from None
        try:
            settings.check_kept(self.settings, config)
        except Refused as error:
            raise Refused("configuration %s refused: %s; change that setting first"
                          % (name, error)) from None
        event = {"ev": "config", "config": config.name, "was": self.config}
        if self.phase == RUNNING:
            event.update(self._close_untouched_cycle())
        self.config = config.name
        self.phase = AWAITING_RESET  # the new configuration starts at its reset
        return [event]

    def _close_untouched_cycle(self):
        # A cycle no round has played ends unplayed: its seed is withdrawn (the
        # new configuration seeds its own minimum) and its secret revealed.
        minimum = configs.get(self.config).minimum
        self.seeded -= minimum
        self.meter -= minimum
        closed = {"withdrawn": minimum, "cycle": self.cycle, "hit_value": self._hit_value,
                  "salt": self._salt}
        self._hit_value, self._salt = 0, ""
        self.exposed = False  # the closed cycle's value is revealed anyway
        return closed

    def change_setting(self, name, value):
        # One of the table's settings (settings.py), logged with its old value.
        # Every setting changes money (docs/mystery.md, "Settings change only
        # at a reset"), so, as a configuration, it changes only at a reset;
        # mid-cycle the bonus logs the refusal (setting_refusal).
        value = self._valid_setting(name, value)
        _refuse_unless(self.at_reset(), self.mid_cycle("setting %s" % name))
        was = self.setting(name)
        if value == settings.default(name):
            self.settings.pop(name, None)  # kept small: a default is not stored
        else:
            self.settings[name] = value
        return [{"ev": "setting", "name": name, "was": was, "value": value}]

    def _valid_setting(self, name, value):
        config = None if self.config is None else configs.get(self.config)
        return settings.validate(name, value, config)

    def mid_cycle(self, what):
        # Why a change that moves money waits: the cycle in play is not at its reset.
        if self.phase == PENDING:
            where = "cycle %d's hit is pending" % self.cycle
        else:
            where = "cycle %d has played %d rounds since its reset" % (
                self.cycle, self.round - self.reset_round)
        return ("%s refused and logged: settings change only with the meter at a reset, and "
                "%s; change it after the next hit's reset, before the next LOCK"
                % (what, where))

    def setting_refusal(self, name, value):
        # A valid change asked for mid-cycle: the record that logs its
        # refusal, or None at a reset, where it may be made. A name or value
        # that will not do is refused (Refused) here, unlogged, as bad input.
        value = self._valid_setting(name, value)
        if self.at_reset():
            return None
        return {"ev": "setting_refused", "name": name, "value": value, "phase": self.phase,
                "cycle": self.cycle, "round": self.round}

    def reset(self, random_bytes):
        _refuse_unless(self.phase == AWAITING_RESET, "reset needs a validated hit or a new "
                       "configuration (meter is %s)" % self.phase)
        config = configs.get(self.config)
        self.seeded += config.minimum
        self.meter += config.minimum
        self.cycle += 1
        self._hit_value, self._salt = hitvalue.draw(random_bytes, config.minimum,
                                                    config.maximum)
        self.commitment = hitvalue.commitment(self._hit_value, self._salt)
        self.reset_round = self.round
        self.reset_meter = self.meter
        self.phase = RUNNING
        return [{"ev": "reset", "cycle": self.cycle, "config": config.name,
                 "meter": self.meter, "commitment": self.commitment}]

    def redraw(self, random_bytes):
        # The recovery from an exposed hit value: the old value and salt are
        # revealed (anyone may know them now) and a fresh value is drawn for
        # the same cycle, with its commitment published. No money moves.
        # Drawn from the value's law given what is public: once a
        # contribution of this cycle left the meter at M without a hit, the
        # value lies uniformly in [M, maximum - 1 cent]; before any, in the
        # whole range, as at the reset.
        _refuse_unless(self.phase == RUNNING and self.exposed,
                       "a redraw only when the cycle's hit value was exposed")
        config = configs.get(self.config)
        low = self.meter if self.meter != self.reset_meter else config.minimum
        event = {"ev": "redraw", "cycle": self.cycle, "meter": self.meter,
                 "hit_value": self._hit_value, "salt": self._salt,
                 "revealed": self.commitment}
        self._hit_value, self._salt = hitvalue.draw(random_bytes, low, config.maximum)
        self.commitment = hitvalue.commitment(self._hit_value, self._salt)
        self.exposed = False
        event["commitment"] = self.commitment
        return [event]

    def open_repl(self):
        # The technician's REPL (docs/host-link.md, "The REPL"): whoever is
        # at it can read the flash, so a live cycle's hit value counts as
        # exposed from this record on, and LOCK waits for a redraw. A value
        # already revealed (a hit pending) or not yet drawn has nothing to hide.
        live = self.phase == RUNNING
        if live:
            self.exposed = True
        return [{"ev": "repl", "cycle": self.cycle, "phase": self.phase, "exposed": live}]

    def reveals(self, record):
        # Whether a log record of an operation that never committed shows the
        # live cycle's hit value: a hit, or a configuration that closed the
        # cycle (both carry its salt), or a round whose meter passed the
        # value (its hit record follows, whole or not).
        if self.phase != RUNNING:
            return False
        if record.get("salt") == self._salt or record.get("hit_value") == self._hit_value:
            return True
        return (record.get("ev") == "round" and type(record.get("meter")) is int
                and record["meter"] > self._hit_value)

    def lock_round(self, seats, when=None):
        # when: the board's clock in seconds, kept with a hit (None: no clock).
        if self.phase != RUNNING:
            raise _refused("no round while the meter is %s", self.phase)
        _refuse_unless(not self.exposed, EXPOSED)
        config = configs.get(self.config)
        chosen = _qualifying(config, seats)
        self.round += 1
        events = []
        contributions = []
        for seat, _, cents in chosen:
            amount = config.contribution(cents)
            self.contributed += amount
            self.meter += amount
            self.qualifying_wagers += 1
            self.wagered += cents * MICROS_PER_CENT
            contributions.append([seat, cents, amount])
            if self.phase == RUNNING and self.meter > self._hit_value:
                events.append(self._hit(config, seat, when))
        # The wager meters' totals, as the meter's, so an audit of a log
        # whose oldest records are gone checks them from the first it keeps.
        events.insert(0, {"ev": "round", "round": self.round, "contributions": contributions,
                          "meter": self.meter, "qualifying_wagers": self.qualifying_wagers,
                          "wagered": self.wagered})
        return events

    def _hit(self, config, seat, when):
        # 100% of the meter to the cent, capped; the rest stays for the next cycle.
        award = min(self.meter - self.meter % MICROS_PER_CENT, config.maximum)
        self.pending = [seat, award, self.cycle, self.round, when]
        self.phase = PENDING
        return {"ev": "hit", "seat": seat, "award": award, "cycle": self.cycle,
                "round": self.round, "time": when, "hit_value": self._hit_value,
                "salt": self._salt, "commitment": self.commitment}

    def validate(self, payment, employee=None, slip=None):
        # employee, slip: who validated and the jackpot slip's number, when
        # the host gave them before the key turn; None: not given.
        _refuse_unless(self.phase == PENDING, "no hit is pending")
        _refuse_unless(payment in PAYMENTS, "payment must be one of %s" % ", ".join(PAYMENTS))
        check_validation_text("employee", employee)
        check_validation_text("slip", slip)
        seat, award, cycle, round_number, when = self.pending
        self.paid += award
        self.meter -= award
        self.hits += 1
        hit = [seat, award, cycle, round_number, payment, when]
        self.last_hits = (self.last_hits + [hit])[-LAST_HITS:]
        self.pending = None
        self._hit_value, self._salt = 0, ""  # revealed; the next reset draws anew
        self.phase = AWAITING_RESET
        events = [{"ev": "validated", "seat": seat, "award": award, "cycle": cycle,
                   "employee": employee, "slip": slip},
                  {"ev": "paid", "seat": seat, "award": award, "cycle": cycle,
                   "payment": payment}]
        if self.setting("reset") == settings.MINIMUM and self.meter:
            events.append(self._retain(cycle))
        return events

    def _retain(self, cycle):
        # The reset to exactly the minimum (653b.1(c)(5)(iv) read strictly):
        # what lay above the award, and what later seats of the hit's round
        # contributed, leaves the meter for the retained total, so the next
        # cycle starts at its seed alone.
        amount, self.meter = self.meter, 0
        self.retained += amount
        return {"ev": "retained", "amount": amount, "cycle": cycle}
