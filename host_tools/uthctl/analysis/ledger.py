# The Mystery meter's accounts recomputed from its event log, record by
# record, without the firmware's engine: a reset seeds the configuration's
# minimum, a round adds its contributions (each its wager in cents times the
# rate in basis points), a validated hit pays its award, a retained record
# (the reset setting at "minimum") moves the rest of the meter out of it, a
# configuration change that closes an untouched cycle withdraws its seed.
# Every record that states the meter is checked against the meter carried so
# far, every hit's seat and award against the contributions that reached its
# hit value, each retained amount against the meter left after the payment
# (and the reset setting, where the log shows it), and, once a setting record
# has fixed the table's wager, each wager against it (the engine itself takes
# any wager: a simulation's log has varied ones).
#
# Each round record also states the meters of qualifying wagers (their count,
# and what they wagered in micro-dollars: 13:69E-1.39A(b)(1)) after it: each
# must be the one before plus the round's contributions, and the last the
# board's meters. They are known from record 1, or from the first round that
# states them (an older firmware's rounds do not: a board updated from one
# counts them from its first round on the new one).
#
# A log from record 1 covers the meter's whole history: its totals must be
# the board's meters exactly. A log whose oldest records the board dropped
# starts from the first record that states the meter: its changes are
# checked from there, and the totals only as far as the board's meters add up.
from mystery import configs, hitvalue
from mystery.configs import MICROS_PER_CENT

from . import mystery_sim


class Ledger:
    # chart: keep the meter's chart (a point a record, for the audit's plot);
    # a ledger kept as long as a service runs keeps only its sums.
    def __init__(self, from_genesis, chart=True):
        self.from_genesis = from_genesis
        self.chart = chart
        self.meter = 0 if from_genesis else None  # unknown until a record states it
        self.seeded = self.contributed = self.paid = self.retained = 0  # over the records
        # The settings in force as far as the log shows them: reset at its
        # default from record 1; the others only once a setting record names them.
        self.settings = {"reset": "carry"} if from_genesis else {}
        self.hits = 0  # validated hits
        # The wager meters as the rounds state them; None: not known (yet).
        self.qualifying_wagers = 0 if from_genesis else None
        self.wagered = 0 if from_genesis else None
        self.wagers_stated = False  # a round has stated them
        self.wagers_since = 1 if from_genesis else None  # the record they are known from
        self.config = None
        self.cycle = None
        self.round = None
        self.pending = None  # the hit record awaiting validation
        self.round_before = None  # (meter before, contributions) of the last round
        self.commitments = {}  # cycle -> the commitment in force
        self.problems = []
        self.series = []  # (seq, meter) wherever the meter is known
        self.hit_marks = []  # (seq, round, seat, award)

    def problem(self, record, text):
        self.problems.append("record %s: %s" % (record.get("seq"), text))

    def walk(self, records):
        for record in records:
            step = _STEPS.get(record.get("ev"))
            if step is not None:
                step(self, record)
            if self.chart and self.meter is not None:
                self.series.append((record["seq"], self.meter))
        return self

    # ---- each kind of record ----

    def _stated(self, record, expected):
        # A record that states the meter: it must be what the log adds up to.
        stated = record.get("meter")
        if type(stated) is not int:
            self.problem(record, "no meter")
            return
        if expected is not None and stated != expected:
            self.problem(record, "the meter is %d, the log adds up to %d (%+d)"
                         % (stated, expected, stated - expected))
        self.meter = stated

    def config_record(self, record):
        withdrawn = record.get("withdrawn")
        if type(withdrawn) is int:  # an untouched cycle closed by the change
            self.seeded -= withdrawn
            self.meter = None if self.meter is None else self.meter - withdrawn
            self._revealed(record)
        self.config = _config(record.get("config"))

    def _revealed(self, record):
        # A closed cycle's hit value and salt must open the commitment in force.
        published = self.commitments.get(record.get("cycle"))
        value, salt = record.get("hit_value"), record.get("salt")
        if published is None:
            return  # its reset was dropped from the log
        if type(value) is not int or not isinstance(salt, str) or \
                hitvalue.commitment(value, salt) != published:
            self.problem(record, "the hit value and salt revealed for cycle %s do not match "
                         "its commitment" % record.get("cycle"))

    def reset(self, record):
        config = _config(record.get("config"))
        if config is None:
            self.problem(record, "unknown configuration %r" % record.get("config"))
            return
        self.config, self.cycle = config, record.get("cycle")
        self.commitments[self.cycle] = record.get("commitment")
        self.seeded += config.minimum
        self._stated(record, None if self.meter is None else self.meter + config.minimum)

    def round_record(self, record):
        contributions = triples(record.get("contributions"))
        if contributions is None:
            self.problem(record, "a round without its contributions ([seat, wager, amount], "
                         "whole numbers)")
            return
        added = 0
        fixed = self._fixed_wager()
        for seat, wager, amount in contributions:
            if fixed is not None and wager != fixed:
                self.problem(record, "seat %s wagered %s cents, the table's fixed wager is %s"
                             % (seat, wager, fixed))
            if self.config is not None and amount != self.config.contribution(wager):
                self.problem(record, "seat %s contributed %s on a %s cent wager; %s at %d "
                             "basis points is %d" % (seat, amount, wager, self.config.name,
                                                     self.config.rate_bp,
                                                     self.config.contribution(wager)))
            added += amount
        self.contributed += added
        self._wager_meters(record, contributions)
        self.round = record.get("round")
        before = self.meter
        self.round_before = (before, [(seat, amount) for seat, _, amount in contributions])
        self._stated(record, None if before is None else before + added)

    def _wager_meters(self, record, contributions):
        count, wagered = record.get("qualifying_wagers"), record.get("wagered")
        if count is None and wagered is None:  # a firmware from before them
            if self.wagers_stated:
                self.problem(record, "a round without the qualifying wagers and wagered, after "
                             "rounds that stated them")
            self.qualifying_wagers = self.wagered = self.wagers_since = None
            return
        if type(count) is not int or type(wagered) is not int:
            self.problem(record, "the qualifying wagers and wagered are not whole numbers")
            self.qualifying_wagers = self.wagered = self.wagers_since = None
            return
        if self.qualifying_wagers is None:
            self.wagers_since = record.get("seq")
        else:
            expected = (self.qualifying_wagers + len(contributions),
                        self.wagered + sum(wager for _, wager, _ in contributions)
                        * MICROS_PER_CENT)
            if (count, wagered) != expected:
                self.problem(record, "states %d qualifying wagers and %d wagered, the log adds "
                             "up to %d and %d" % ((count, wagered) + expected))
        self.qualifying_wagers, self.wagered, self.wagers_stated = count, wagered, True

    def hit(self, record):
        if not all(type(record.get(name)) is int for name in ("seat", "award", "round")):
            self.problem(record, "a hit without its seat, award and round")
            return
        self.pending = record
        if self.chart:
            self.hit_marks.append((record["seq"], record.get("round"), record.get("seat"),
                                   record.get("award")))
        before, contributions = self.round_before or (None, None)
        if before is None or self.config is None or record.get("round") != self.round:
            return  # the round that hit was dropped from the log
        audit = mystery_sim.Audit()
        mystery_sim._check_hit(audit, self.config, record, record.get("commitment"), before,
                               contributions)
        for text in audit.problems:
            self.problem(record, text)

    def validated(self, record):
        award = record.get("award")
        if type(award) is not int:
            self.problem(record, "a validation without its award")
            return
        pending = self.pending
        if pending is not None and (pending.get("seat"), pending.get("award")) != (
                record.get("seat"), award):
            self.problem(record, "validates seat %s for %d, the hit was seat %s for %s"
                         % (record.get("seat"), award, pending.get("seat"), pending.get("award")))
        self.pending = None
        self.paid += award
        self.hits += 1
        self.meter = None if self.meter is None else self.meter - award

    def _fixed_wager(self):
        # What each chip counts as, when the log shows it; else None.
        if "wager_cents" not in self.settings or self.config is None:
            return None
        cents = self.settings["wager_cents"]
        return self.config.min_wager_cents if cents is None else cents

    def setting(self, record):
        self.settings[record.get("name")] = record.get("value")

    def retained_record(self, record):
        amount = record.get("amount")
        if type(amount) is not int or amount <= 0:
            self.problem(record, "a retained record without its amount")
            return
        if "reset" in self.settings and self.settings["reset"] != "minimum":
            self.problem(record, "retained with the reset setting at %r"
                         % self.settings["reset"])
        if self.meter is not None and amount != self.meter:
            self.problem(record, "retains %d, the meter after the payment was %d"
                         % (amount, self.meter))
        self.retained += amount
        self.meter = None if self.meter is None else self.meter - amount

    def redraw(self, record):
        # No money moves: the meter it states is the meter carried.
        self.commitments[record.get("cycle")] = record.get("commitment")
        self._stated(record, self.meter)


def triples(contributions):
    # A round's [seat, wager in cents, amount in micro-dollars] lists, or None.
    if not isinstance(contributions, list) or not all(
            isinstance(entry, list) and len(entry) == 3 and all(type(n) is int for n in entry)
            for entry in contributions):
        return None
    return contributions


_STEPS = {"config": Ledger.config_record, "reset": Ledger.reset, "round": Ledger.round_record,
          "hit": Ledger.hit, "validated": Ledger.validated, "redraw": Ledger.redraw,
          "setting": Ledger.setting, "retained": Ledger.retained_record}


def _config(name):
    try:
        return configs.get(name)
    except (ValueError, TypeError):
        return None


def compare(ledger, meters):
    # The walk's end against the board's meters: (what was compared, problems).
    problems = []
    names = ("seeded", "contributed", "paid", "meter", "retained", "hits")
    wagers = _compare_wagers(ledger, meters, problems)
    if ledger.from_genesis:
        for name in names:
            # retained: 0 from a firmware from before it existed.
            mine, theirs = getattr(ledger, name), meters.get(name, 0 if name == "retained"
                                                             else None)
            if mine != theirs:
                problems.append("%s: the board's meters say %s, the log adds up to %s"
                                % (name, theirs, mine))
        return "seeded, contributed, paid, meter, retained and hits from record 1" + wagers, \
            problems
    if ledger.meter is None:
        return "nothing: no record in the log states the meter" + wagers, problems
    if ledger.meter != meters.get("meter"):
        problems.append("meter: the board's meters say %s, the log's records add up to %s"
                        % (meters.get("meter"), ledger.meter))
    return "the meter, from the first record that states it" + wagers, problems


def _compare_wagers(ledger, meters, problems):
    # The wager meters, where the log knows them and the board gives them (a
    # firmware from before them does not): what was compared, as a clause.
    if ledger.qualifying_wagers is None or "qualifying_wagers" not in meters:
        return ""
    for name in ("qualifying_wagers", "wagered"):
        if getattr(ledger, name) != meters.get(name):
            problems.append("%s: the board's meters say %s, the log's rounds add up to %s"
                            % (name, meters.get(name), getattr(ledger, name)))
    return "; qualifying wagers and wagered from record %s" % ledger.wagers_since
