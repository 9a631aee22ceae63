# The Must-Hit-By Mystery meter run on the host: the firmware's own engine
# (mystery.meter.Meter, in memory, no store) fed by a seeded table, with every
# operation audited against accounts kept here independently of the engine,
# a uniformity test of the revealed hit values, and the check of a log file's
# hash chain and commitments.
#
# Money is integer micro-dollars as in the firmware; only the text output and
# the plot show dollars.
import json
import math
import random

from mystery import chain, configs, hitvalue
from mystery.configs import MICROS_PER_CENT, MICROS_PER_DOLLAR
from mystery.meter import PAYMENTS, PENDING, Meter
from mystery.record import public_meters

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
UNIFORMITY_BINS = 20
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
    audit.check("identity", meter.seeded + meter.contributed == meter.paid + meter.meter,
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
    _operate(sim, log, "configure", sim.meter.configure(name, True))
    commitment = _reset(sim, log, device)
    for number in range(1, rounds + 1):
        hit = _play_round(sim, log, _round_seats(table_rng, config, seats, table), commitment)
        if hit is not None:
            _pay(sim, log, hit)
            commitment = _reset(sim, log, device)
        if progress is not None and (number % _PROGRESS_EVERY == 0 or number == rounds):
            progress(number, rounds)
    return sim


# ---- statistics ----

def uniformity(hit_values, minimum, maximum, bins=UNIFORMITY_BINS):
    # Chi-square over equal bins of the cent values [minimum, maximum - 1 cent],
    # and Kolmogorov-Smirnov against the continuous uniform on [minimum, maximum).
    # scipy is imported here so the other uthctl commands start without it.
    from scipy import stats

    low = minimum // MICROS_PER_CENT
    count = maximum // MICROS_PER_CENT - low
    # Fewer bins when hits are few, so each bin expects at least five.
    bins = min(bins, len(hit_values) // 5)
    result = {"values": len(hit_values), "bins": bins}
    if bins < 2:
        return result
    counts = [0] * bins
    for value in hit_values:
        counts[(value // MICROS_PER_CENT - low) * bins // count] += 1
    chi2 = stats.chisquare(counts)
    ks = stats.kstest(hit_values, stats.uniform(loc=minimum, scale=maximum - minimum).cdf)
    result.update(counts=counts, chi2=float(chi2.statistic), df=bins - 1,
                  chi2_p_value=float(chi2.pvalue), ks_statistic=float(ks.statistic),
                  ks_p_value=float(ks.pvalue))
    return result


def award_stats(awards, minimum, maximum):
    # Mean award against (minimum + maximum) / 2, with the standard error of a
    # uniform mean: (maximum - minimum) / sqrt(12 n).
    expected = (minimum + maximum) / 2
    result = {"count": len(awards), "expected_mean": expected}
    if not awards:
        return result
    mean = sum(awards) / len(awards)
    stderr = (maximum - minimum) / math.sqrt(12 * len(awards))
    result.update(min=min(awards), mean=mean, max=max(awards), stderr=stderr,
                  z=(mean - expected) / stderr,
                  within_range=all(minimum <= a <= maximum for a in awards))
    return result


# ---- the report ----

def config_dict(config):
    return {"name": config.name, "min_wager_cents": config.min_wager_cents,
            "minimum": config.minimum, "maximum": config.maximum, "rate_bp": config.rate_bp}


def report(sim):
    # Everything public: the live cycle's hit value and salt never appear.
    config = sim.config
    awards = [hit["award"] for hit in sim.hits]
    return {
        "config": config_dict(config),
        "rounds": sim.rounds, "seats": sim.seats, "seed": sim.seed,
        "wager_model": WAGER_MODEL_TEXT,
        "meters": public_meters(sim.meter),
        "operations": sim.operations,
        "checks": sim.audit.as_dict(),
        "problems": sim.audit.problems,
        "ok": sim.audit.ok(),
        "awards": award_stats(awards, config.minimum, config.maximum),
        "uniformity": uniformity([hit["hit_value"] for hit in sim.hits], config.minimum,
                                 config.maximum),
        "hits": [{key: hit[key] for key in ("cycle", "round", "seat", "award", "payment",
                                            "hit_value", "salt", "commitment")}
                 for hit in sim.hits],
    }


def dollars(micros):
    # Whole cents as $1,234.56; a fraction of a cent (1.5% of $1) to the micro-dollar.
    sign = "-" if micros < 0 else ""
    whole, rest = divmod(abs(micros), MICROS_PER_DOLLAR)
    if rest % MICROS_PER_CENT == 0:
        return "%s$%s.%02d" % (sign, format(whole, ","), rest // MICROS_PER_CENT)
    return "%s$%s.%06d" % (sign, format(whole, ","), rest)


def dollars_approx(micros):
    # A mean or a difference, to the cent.
    return "%s$%s" % ("-" if micros < 0 else "", format(abs(micros) / MICROS_PER_DOLLAR, ",.2f"))


def config_line(c):
    return "%s: $%d minimum progressive wager, %s-%s, %s%%" % (
        c["name"], c["min_wager_cents"] // 100, dollars(c["minimum"]), dollars(c["maximum"]),
        _percent(c["rate_bp"]))


def _percent(rate_bp):
    whole, rest = divmod(rate_bp, 100)
    return "%d" % whole if rest == 0 else ("%d.%02d" % (whole, rest)).rstrip("0")


def _checks_lines(rep):
    checks = rep["checks"]
    total = sum(c["checks"] for c in checks.values())
    failed = sum(c["failures"] for c in checks.values())
    identity = checks["identity"]
    lines = ["identity seeded + contributed = paid + meter: %s after each of %s operations"
             % ("exact" if identity["failures"] == 0 else
                "BROKEN %d times" % identity["failures"], format(identity["checks"], ",")),
             "checks: %s made, %d failed (%s)" % (
                 format(total, ","), failed,
                 ", ".join("%s %s" % (name, format(c["checks"], ","))
                           for name, c in sorted(checks.items())))]
    lines += ["PROBLEM: " + problem for problem in rep["problems"]]
    return lines


def _award_lines(rep):
    a, c = rep["awards"], rep["config"]
    if not a["count"]:
        return ["awards: no hit"]
    return ["awards: %d, min %s, mean %s, max %s; %s [%s, %s]" % (
                a["count"], dollars(a["min"]), dollars_approx(a["mean"]), dollars(a["max"]),
                "all within" if a["within_range"] else "NOT all within",
                dollars(c["minimum"]), dollars(c["maximum"])),
            "mean award %s vs expected (minimum + maximum) / 2 = %s: "
            "difference %s, %.2f standard errors" % (
                dollars_approx(a["mean"]), dollars_approx(a["expected_mean"]),
                dollars_approx(a["mean"] - a["expected_mean"]), a["z"])]


def _uniformity_line(u):
    if "chi2" not in u:
        return "hit values: %d revealed, too few for a uniformity test" % u["values"]
    return ("hit values (%d revealed) uniform over [minimum, maximum - 1 cent]: chi-square "
            "%.2f on %d df (%d bins), p = %.4f; Kolmogorov-Smirnov D = %.4f, p = %.4f"
            % (u["values"], u["chi2"], u["df"], u["bins"], u["chi2_p_value"],
               u["ks_statistic"], u["ks_p_value"]))


def format_report(rep):
    m = rep["meters"]
    payments = {}
    for hit in rep["hits"]:
        payments[hit["payment"]] = payments.get(hit["payment"], 0) + 1
    lines = [
        "Must-Hit-By Mystery " + config_line(rep["config"]),
        "%s rounds x %d seats, seed %d; %s" % (format(rep["rounds"], ","), rep["seats"],
                                               rep["seed"], rep["wager_model"]),
        "meters: seeded %s + contributed %s = paid %s + meter %s" % (
            dollars(m["seeded"]), dollars(m["contributed"]), dollars(m["paid"]),
            dollars(m["meter"])),
        "cycle %d (%s), hits %d, payments %s" % (
            m["cycle"], m["phase"], m["hits"],
            ", ".join("%s %d" % item for item in sorted(payments.items())) or "none"),
    ]
    lines += _checks_lines(rep) + _award_lines(rep) + [_uniformity_line(rep["uniformity"])]
    lines.append("result: " + ("ok" if rep["ok"] else "FAILED"))
    return "\n".join(lines)


# ---- the plot ----

def plot_awards(rep, path):
    # Histogram of awards in dollars over [minimum, maximum] with the uniform
    # expectation and its two-standard-deviation band. Agg: no display needed.
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    c = rep["config"]
    awards = [hit["award"] / MICROS_PER_DOLLAR for hit in rep["hits"]]
    low, high = c["minimum"] / MICROS_PER_DOLLAR, c["maximum"] / MICROS_PER_DOLLAR
    bins = UNIFORMITY_BINS
    expected = len(awards) / bins
    spread = 2 * math.sqrt(len(awards) * (1 / bins) * (1 - 1 / bins))
    figure, axes = pyplot.subplots(figsize=(8, 4.8), dpi=100)
    # The band first and under the bars; a count cannot be negative.
    axes.axhspan(max(0.0, expected - spread), expected + spread, color="#dd8452", alpha=0.2,
                 zorder=0, label="uniform \u00b1 2 sd")
    axes.hist(awards, bins=bins, range=(low, high), color="#4c72b0", edgecolor="white",
              zorder=2, label="awards (%d)" % len(awards))
    axes.axhline(expected, color="#dd8452", linewidth=2, zorder=3,
                 label="uniform expectation (%.1f per bin)" % expected)
    axes.set_xlim(low, high)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("award ($)")
    axes.set_ylabel("hits per $%g bin" % ((high - low) / bins))
    axes.set_title("Must-Hit-By Mystery %s: %s rounds x %d seats, seed %d"
                   % (c["name"], format(rep["rounds"], ","), rep["seats"], rep["seed"]))
    # Below the axes, so it never hides a bar.
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False)
    figure.tight_layout()
    figure.savefig(path, format="png")
    pyplot.close(figure)


# ---- checking a log ----

class _LogCheck:
    def __init__(self):
        self.resets = {}  # cycle -> reset record
        self.published = {}  # cycle -> (its commitment in force, "reset" or "redraw")
        self.hits = 0
        self.redraws = 0
        self.anchored = 0  # hits checked against their cycle's reset record

    def reset(self, record):
        cycle = record.get("cycle")
        if cycle in self.resets:
            return "record %r resets cycle %r a second time" % (record.get("seq"), cycle)
        self.resets[cycle] = record
        self.published[cycle] = (record.get("commitment"), "reset")
        return None

    def redraw(self, record):
        # A cycle whose value a failed commit exposed: the old value and salt
        # revealed against the commitment in force, a new one published.
        seq, cycle = record.get("seq"), record.get("cycle")
        value, salt = record.get("hit_value"), record.get("salt")
        if type(value) is not int or not isinstance(salt, str) or not isinstance(
                record.get("commitment"), str):
            return "record %r: redraw without a revealed hit value, salt and new commitment" % (
                seq,)
        self.redraws += 1
        # With its reset trimmed from the log, only the redraw's own copy is left.
        published = self.published.get(cycle, (record.get("revealed"),))[0]
        if hitvalue.commitment(value, salt) != published or record.get("revealed") != published:
            return ("record %r: the hit value and salt a redraw of cycle %r reveals do not match "
                    "the commitment in force" % (seq, cycle))
        self.published[cycle] = (record["commitment"], "redraw")
        reset = self.resets.get(cycle)
        return None if reset is None else _hit_in_range(record, reset)

    def hit(self, record):
        seq, cycle = record.get("seq"), record.get("cycle")
        value, salt = record.get("hit_value"), record.get("salt")
        if type(value) is not int or not isinstance(salt, str):
            return "record %r: hit without a revealed hit value and salt" % (seq,)
        self.hits += 1
        reset = self.resets.get(cycle)
        # A reset dropped when the log was trimmed leaves only the hit's own
        # copy (or a later redraw's commitment).
        published, where = self.published.get(cycle, (record.get("commitment"), None))
        if hitvalue.commitment(value, salt) != published:
            return ("record %r: revealed hit value and salt of cycle %r do not match the "
                    "commitment published at its %s%s"
                    % (seq, cycle, where or "reset",
                       "" if where else " (as copied in the hit record)"))
        if reset is None:
            return None
        self.anchored += 1
        if record.get("commitment") != published:
            return "record %r: hit commitment differs from its %s's" % (seq, where)
        return _hit_in_range(record, reset)


# The kinds of record checked beyond the chain, each by its _LogCheck method
# (the fields each needs are in logread.KIND_FIELDS).
_KIND_CHECKS = {"reset": _LogCheck.reset, "redraw": _LogCheck.redraw, "hit": _LogCheck.hit}


def _hit_in_range(record, reset):
    try:
        config = configs.get(reset.get("config"))
    except ValueError:
        return "record %r: unknown configuration %r" % (reset.get("seq"), reset.get("config"))
    if not config.minimum <= record["hit_value"] < config.maximum:
        return "record %r: hit value outside [minimum, maximum - 1 cent] of %s" % (
            record.get("seq"), config.name)
    return None


def _anchor_problem(records, after, head):
    # Where the records must start and end, when the caller knows: `after`,
    # the (seq, hash) of the last record of an earlier export; `head`, the
    # meter's log head as `uthctl meters` reads it. A log from record 1 starts
    # at the genesis hash. Returns (problem or None, start anchor, end anchor).
    start = None
    if after is not None:
        first_seq = records[0].get("seq") if records else None
        if records and (first_seq != after[0] + 1 or records[0].get("prev") != after[1]):
            return ("record %r does not follow record %d of the earlier export"
                    % (first_seq, after[0])), None, None
        start = "after record %d" % after[0]
    elif records and records[0].get("seq") == 1:
        if records[0].get("prev") != chain.GENESIS:
            return "record 1 does not start from the genesis hash", None, None
        start = "genesis"
    end = None
    if head is not None:
        last = records[-1] if records else None
        last_seq = last.get("seq") if last else (after[0] if after else 0)
        last_hash = last.get("hash") if last else (after[1] if after else chain.GENESIS)
        if last_seq is not None and last_seq > head[0]:
            return ("the log runs past the meter's head (record %d) to record %d: read the "
                    "meters after exporting the log" % (head[0], last_seq)), None, None
        if last_seq != head[0]:
            return ("the log ends at record %s, the meter's head is record %d: records are "
                    "missing from its end" % (last_seq, head[0])), None, None
        if last_hash != head[1]:
            return ("record %d is not the meter's head (its hash differs)" % head[0]), None, None
        end = "the meter's head"
    return None, start, end


def verify_log(records, after=None, head=None):
    # The chain first (altered, removed or reordered records), where it starts
    # and ends when known, then each revealed hit value against its cycle's
    # commitment. The records are as logread.read_log gives them: each has
    # the fields its kind is checked on.
    result = {"records": len(records), "ok": False}
    if not records:
        result["problem"] = "the log holds no records"
        return result
    result.update(first_seq=records[0]["seq"], last_seq=records[-1]["seq"])
    ok, message = chain.verify(records)
    if not ok:
        result["problem"] = message
        return result
    problem, start, end = _anchor_problem(records, after, head)
    if problem:
        result["problem"] = problem
        return result
    check = _LogCheck()
    for record in records:
        checker = _KIND_CHECKS.get(record["ev"])
        problem = checker(check, record) if checker else None
        if problem:
            result["problem"] = problem
            return result
    result.update(ok=True, chain=message, hits=check.hits, redraws=check.redraws,
                  anchored=check.anchored,
                  unanchored=check.hits - check.anchored, starts_at=start, ends_at=end)
    return result


def format_verify(result):
    if not result["ok"]:
        return "log check FAILED: " + result["problem"]
    text = "ok: %s; revealed hit values: %d, each matching its cycle's commitment" % (
        result["chain"], result["hits"])
    if result["redraws"]:
        text += "; values redrawn after a failed commit exposed them: %d, each revealed " \
                "as committed" % result["redraws"]
    text += "; starts at %s" % (result["starts_at"] or "a record whose predecessor is not "
                                "given (--after): records may be missing before it")
    text += "; ends at %s" % (result["ends_at"] or "a record not checked against the meter's "
                              "head (--head): records may be missing after it")
    if result["unanchored"]:
        text += (" (%d whose reset record is no longer in the log: checked against the "
                 "commitment copied in the hit record)" % result["unanchored"])
    return text
