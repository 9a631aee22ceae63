# The Must-Hit-By Mystery meter run on the host: the firmware's own engine
# (mystery.meter.Meter, in memory, no store) fed by a seeded table, with every
# operation audited against accounts kept here independently of the engine,
# and the results reported (mystery_report.py).
#
# Money is integer micro-dollars as in the firmware; only the text output and
# the plot show dollars.
import json
import random

from mystery import chain, configs, hitvalue
from mystery.configs import MICROS_PER_CENT
from mystery.meter import PAYMENTS, PENDING, Meter

# The seeded table: each seat has an Ultimate Texas Hold 'Em wager every round
# and, independently each round, a progressive wager drawn as below. A seat
# without a progressive wager does not qualify (653b.1(c)(1)).
WAGER_MODEL = (
    (0.80, 1),  # the configuration's minimum progressive wager
    (0.10, 2),  # twice the minimum
    (0.10, 0),  # no progressive wager
)
WAGER_MODEL_TEXT = ("each seat has a UTH wager every round; its progressive wager is the "
                    "configuration's minimum (80%), twice the minimum (10%) or none (10%)")
_PROGRESS_EVERY = 10_000
_PROBLEMS_KEPT = 10


# ---- the seeded table ----

def _wager_table():
    # Cumulative thresholds so one rng.random() picks a seat's wager multiple.
    table, total = [], 0.0
    for share, multiple in WAGER_MODEL:
        total += share
        table.append((total, multiple))
    return table


def _round_seats(rng, config, seat_count, table):
    seats = []
    for seat in range(1, seat_count + 1):
        pick = rng.random()
        multiple = next((m for limit, m in table if pick < limit), table[-1][1])
        seats.append((seat, True, multiple * config.min_wager_cents))
    return seats


# ---- the audit ----

class Audit:
    # Counts every check made and keeps the first problems found.
    def __init__(self):
        self.counts = {}
        self.failures = {}
        self.problems = []

    def check(self, name, condition, message):
        self.counts[name] = self.counts.get(name, 0) + 1
        if not condition:
            self.failures[name] = self.failures.get(name, 0) + 1
            if len(self.problems) < _PROBLEMS_KEPT:
                self.problems.append(message() if callable(message) else message)

    def ok(self):
        return not self.failures

    def as_dict(self):
        return {name: {"checks": count, "failures": self.failures.get(name, 0)}
                for name, count in sorted(self.counts.items())}


class Shadow:
    # The accounts recomputed from the table's wagers and the configuration,
    # without the engine, to compare with the engine's own meters.
    def __init__(self, config):
        self.config = config
        self.seeded = 0
        self.contributed = 0
        self.paid = 0

    def contributions(self, seats):
        # (seat, micro-dollars) of the qualifying seats in seat order:
        # cents x basis points = micro-dollars exactly.
        return [(seat, cents * self.config.rate_bp) for seat, uth, cents in sorted(seats)
                if uth and cents >= self.config.min_wager_cents]


def _check_identity(audit, meter, shadow, operation):
    # After every operation: the engine's identity, and its meters against ours.
    # (retained stays 0 here: the simulation runs at the reset setting's default)
    audit.check("identity", meter.seeded + meter.contributed
                == meter.paid + meter.meter + meter.retained,
                lambda: "identity broken after %s (round %d)" % (operation, meter.round))
    audit.check("shadow_accounts",
                (meter.seeded, meter.contributed, meter.paid)
                == (shadow.seeded, shadow.contributed, shadow.paid),
                lambda: "engine meters differ from the recomputed ones after %s (round %d)"
                % (operation, meter.round))


def _expected_hit(meter_before, contributions, hit_value):
    # (seat, meter at the hit) for the first contribution that takes the meter
    # above the hit value, or None.
    running = meter_before
    for seat, amount in contributions:
        running += amount
        if running > hit_value:
            return seat, running
    return None


def _check_hit(audit, config, hit, commitment, meter_before, contributions):
    value = hit["hit_value"]
    audit.check("commitment", hitvalue.commitment(value, hit["salt"]) == commitment,
                lambda: "cycle %d: revealed hit value and salt do not match the commitment "
                "published at its reset" % hit["cycle"])
    audit.check("hit_value_range", config.minimum <= value < config.maximum
                and value % MICROS_PER_CENT == 0,
                lambda: "cycle %d: hit value %d outside [minimum, maximum - 1 cent]"
                % (hit["cycle"], value))
    expected = _expected_hit(meter_before, contributions, value)
    award = hit["award"]
    audit.check("award_range", config.minimum <= award <= config.maximum,
                lambda: "cycle %d: award %d outside [minimum, maximum]" % (hit["cycle"], award))
    if expected is None:
        audit.check("hit_seat", False, lambda: "cycle %d: hit although no contribution "
                    "took the meter above the hit value" % hit["cycle"])
        return
    seat, meter_at_hit = expected
    audit.check("hit_seat", hit["seat"] == seat and meter_before <= value,
                lambda: "cycle %d: seat %d hit, expected seat %d" % (hit["cycle"],
                                                                      hit["seat"], seat))
    # 100% of the meter to the cent, capped at the maximum (rules.md).
    want = min(meter_at_hit - meter_at_hit % MICROS_PER_CENT, config.maximum)
    audit.check("award_amount", award == want,
                lambda: "cycle %d: award %d, expected %d" % (hit["cycle"], award, want))


def _check_no_hit(audit, meter_before, contributions, meter):
    # Without a hit the secret stays secret, but the meter still must add up.
    audit.check("round_meter", meter.meter == meter_before + sum(a for _, a in contributions),
                lambda: "round %d: meter does not add the contributions" % meter.round)


# ---- the simulation ----

class Simulation:
    def __init__(self, config, rounds, seats, seed):
        self.config = config
        self.rounds = rounds
        self.seats = seats
        self.seed = seed
        self.meter = Meter()
        self.audit = Audit()
        self.shadow = Shadow(config)
        self.hits = []  # the hit events, each with its payment
        self.operations = 0


class _Log:
    # The events as linked log records, written as JSON lines (or not at all).
    def __init__(self, stream):
        self.stream = stream
        self.seq = 0
        self.prev = chain.GENESIS

    def write(self, events):
        if self.stream is None:
            return
        for event in events:
            self.seq += 1
            record = chain.link(event, self.seq, self.prev)
            self.prev = record["hash"]
            self.stream.write(json.dumps(record) + "\n")


def _operate(sim, log, name, events):
    sim.operations += 1
    log.write(events)
    _check_identity(sim.audit, sim.meter, sim.shadow, name)
    return events


def _reset(sim, log, device):
    sim.shadow.seeded += sim.config.minimum
    events = _operate(sim, log, "reset", sim.meter.reset(device.randbytes))
    return events[0]["commitment"]


def _play_round(sim, log, seats, commitment):
    meter = sim.meter
    meter_before = meter.meter
    contributions = sim.shadow.contributions(seats)
    sim.shadow.contributed += sum(amount for _, amount in contributions)
    events = _operate(sim, log, "round", meter.lock_round(seats))
    hits = [event for event in events if event["ev"] == "hit"]
    sim.audit.check("one_hit_per_round", len(hits) <= 1 and (meter.phase == PENDING) == bool(hits),
                    lambda: "round %d: %d hits" % (meter.round, len(hits)))
    if not hits:
        _check_no_hit(sim.audit, meter_before, contributions, meter)
        return None
    _check_hit(sim.audit, sim.config, hits[0], commitment, meter_before, contributions)
    return hits[0]


def _pay(sim, log, hit):
    # The floorperson's choice of payment, alternated so both are exercised.
    payment = PAYMENTS[len(sim.hits) % len(PAYMENTS)]
    sim.shadow.paid += hit["award"]
    _operate(sim, log, "validate", sim.meter.validate(payment))
    sim.hits.append(dict(hit, payment=payment))


def simulate(name, rounds, seats, seed, progress=None, log_stream=None):
    # The device's random bytes and the table's wagers come from two streams
    # of the one seed, so a change of wager model leaves the draws' source alone.
    config = configs.get(name)
    sim = Simulation(config, rounds, seats, seed)
    device = random.Random(seed)
    table_rng = random.Random("table:%d" % seed)
    table = _wager_table()
    log = _Log(log_stream)
    _operate(sim, log, "configure", sim.meter.configure(name))
    commitment = _reset(sim, log, device)
    for number in range(1, rounds + 1):
        hit = _play_round(sim, log, _round_seats(table_rng, config, seats, table), commitment)
        if hit is not None:
            _pay(sim, log, hit)
            commitment = _reset(sim, log, device)
        if progress is not None and (number % _PROGRESS_EVERY == 0 or number == rounds):
            progress(number, rounds)
    return sim
