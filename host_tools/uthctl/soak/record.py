# The host's own record of a soak: every event the board sends over its host
# link, kept and checked as it comes, with running totals that must be the
# board's meters (seeded + contributed = paid + meter + retained). What the
# host expects
# it computes itself from the configuration's figures (653b.1(c)(4)), the
# table's settings it was told of and the seats it placed chips on; each
# disagreement is a difference, named.
from mystery import configs, hitvalue

MICROS_PER_CENT = 10_000
# Events that are never part of a clean soak.
TROUBLE = ("refused", "fault", "store_warning", "display_error", "started")
# A meter a firmware from before it existed does not send, and what that means.
_BEFORE_IT_EXISTED = {"retained": 0}
TOTALS = ("seeded", "contributed", "paid", "meter", "retained", "hits", "round", "cycle")


class HostRecord:
    def __init__(self):
        self.config = None
        self.seeded = self.contributed = self.paid = self.meter = self.retained = 0
        self.settings = {}  # the board's settings in force, as it states them
        self.hits = self.round = self.cycle = 0
        self.commitment = None
        self.events = {}  # event name -> how many seen
        self.differences = []
        self.expected = None  # the round in play: (seats, meter before)
        self.in_round = None  # (round, [(seat, amount)]) as its events come
        self.hit = None  # the pending hit's event
        self.payment = None  # the method chosen for the pending hit
        self.owed_retained = 0  # what a validation under reset minimum must retain

    def start_from(self, meters):
        # A soak on a board that has played before starts from its meters.
        for name in TOTALS:
            setattr(self, name, meters.get(name) or 0)
        self.config = configs.get(meters["config"]) if meters.get("config") else None
        self.commitment = meters.get("commitment")
        self.settings = dict(meters.get("settings") or {})

    def differ(self, text):
        self.differences.append("round %d: %s" % (self.round, text))

    # ---- what the host did ----

    def placed(self, seats):
        # The dealer locks a round with chips on these seats.
        self.expected = sorted(seats)
        self.in_round = None

    def chose(self, payment):
        self.payment = payment

    # ---- what the board said ----

    def take(self, event):
        name = event.get("ev")
        self.events[name] = self.events.get(name, 0) + 1
        if name in TROUBLE:
            self.differ("the board sent %s: %s" % (name, event))
            return
        step = _STEPS.get(name)
        if step is not None:
            step(self, event)

    def _setting(self, event):
        self.settings[event.get("name")] = event.get("value")

    def _wager(self):
        # What each chip counts as: the fixed wager set, else the minimum.
        cents = self.settings.get("wager_cents")
        return self.config.min_wager_cents if cents is None else cents

    def _config(self, event):
        self.config = configs.get(event["config"])

    def _reset(self, event):
        self.config = configs.get(event["config"])
        self.seeded += self.config.minimum
        self.meter += self.config.minimum
        self.cycle += 1
        self.commitment = event.get("commitment")
        self._same("reset's cycle", event.get("cycle"), self.cycle)
        self._same("reset's meter", event.get("meter"), self.meter)

    def _locked(self, event):
        self.round += 1
        self._same("locked round", event.get("round"), self.round)
        self.in_round = (event.get("meter"), [])

    def _contribution(self, event):
        if self.in_round is None or self.config is None:
            self.differ("a contribution outside a round: %s" % event)
            return
        wager = self._wager()
        self._same("seat %s's wager" % event.get("seat"), event.get("wager"), wager)
        self._same("seat %s's contribution" % event.get("seat"), event.get("amount"),
                   self.config.contribution(wager))
        self.in_round[1].append((event.get("seat"), event.get("amount")))
        self.contributed += event.get("amount", 0)
        self.meter += event.get("amount", 0)

    def round_done(self):
        # All of the round's contributions are in: the seats and the meter
        # the locked event stated must be the host's.
        stated, contributions = self.in_round or (None, [])
        seats = [seat for seat, _ in contributions]
        self._same("qualifying seats", seats, self.expected)
        self._same("locked meter", stated, self.meter)

    def _hit(self, event):
        self.hit = event
        if self.in_round is None or self.config is None:
            self.differ("a hit outside a round: %s" % event)
            return
        value, salt = event.get("hit_value"), event.get("salt")
        if type(value) is not int or not isinstance(salt, str):
            self.differ("a hit without its hit value and salt: %s" % event)
            return
        self._same("hit's commitment", event.get("commitment"), self.commitment)
        if hitvalue.commitment(value, salt) != self.commitment:
            self.differ("the hit value and salt revealed do not open the reset's commitment")
        if not self.config.minimum <= value < self.config.maximum:
            self.differ("hit value %s outside %s's range" % (value, self.config.name))
        seat, award = self._winner(value)
        self._same("hit's seat", event.get("seat"), seat)
        self._same("hit's award", event.get("award"), award)

    def _winner(self, value):
        # The first seat whose contribution takes the meter above the hit
        # value wins the meter to the cent, capped at the maximum.
        meter = self.meter - sum(amount for _, amount in self.in_round[1])
        for seat, amount in self.in_round[1]:
            meter += amount
            if meter > value:
                return seat, min(meter - meter % MICROS_PER_CENT, self.config.maximum)
        return None, None

    def _validated(self, event):
        hit = self.hit or {}
        self._same("validated seat", event.get("seat"), hit.get("seat"))
        self._same("validated award", event.get("award"), hit.get("award"))

    def _paid(self, event):
        hit, self.hit = self.hit or {}, None
        award = hit.get("award", 0)
        self._same("paid award", event.get("award"), award)
        self._same("payment", event.get("payment"), self.payment)
        self.paid += award
        self.meter -= award
        self.hits += 1
        # Under reset minimum the rest leaves the meter: its retained event follows.
        self.owed_retained = self.meter if self.settings.get("reset") == "minimum" else 0

    def _retained(self, event):
        self._same("retained", event.get("amount"), self.owed_retained)
        self.retained += self.owed_retained
        self.meter -= self.owed_retained
        self.owed_retained = 0

    def _same(self, what, theirs, mine):
        if theirs != mine:
            self.differ("%s: the board says %s, the host's record %s" % (what, theirs, mine))

    # ---- against the board's meters ----

    def totals(self):
        return {name: getattr(self, name) for name in TOTALS}

    def reconcile(self, meters, when):
        # The board's meters against the host's running totals.
        found = []
        for name, mine in self.totals().items():
            theirs = meters.get(name, _BEFORE_IT_EXISTED.get(name))
            if theirs != mine:
                found.append("%s: %s: the board's meters say %s, the host's record %s"
                             % (when, name, theirs, mine))
        if meters.get("seeded", 0) + meters.get("contributed", 0) != \
                meters.get("paid", 0) + meters.get("meter", 0) + meters.get("retained", 0):
            found.append("%s: the board's meters break seeded + contributed = paid + meter "
                         "+ retained" % when)
        for text in found:
            self.differ(text)
        return not found


_STEPS = {"config": HostRecord._config, "reset": HostRecord._reset,
          "locked": HostRecord._locked, "contribution": HostRecord._contribution,
          "hit": HostRecord._hit, "validated": HostRecord._validated,
          "paid": HostRecord._paid, "retained": HostRecord._retained,
          "setting": HostRecord._setting}
