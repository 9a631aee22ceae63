# What a Mystery simulation (mystery_sim.py) shows: its public results, a
# uniformity test of the revealed hit values, the awards against the
# configuration's range, as text, JSON or a plot. The live cycle's hit value
# and salt never appear.
#
# Money is integer micro-dollars as in the firmware; only the text output and
# the plot show dollars.
import math

from mystery.configs import MICROS_PER_CENT, MICROS_PER_DOLLAR
from mystery.money import dollars, dollars_brief, dollars_to_cent
from mystery.record import public_meters

from .mystery_sim import WAGER_MODEL_TEXT

UNIFORMITY_BINS = 20


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


def _mean_dollars(micros):
    # A mean or a difference of means (a float of micro-dollars), to the cent.
    return dollars_to_cent(round(micros))


def config_line(c):
    return "%s: %s minimum progressive wager, %s-%s, %s%%" % (
        c["name"], dollars_brief(c["min_wager_cents"] * MICROS_PER_CENT),
        dollars(c["minimum"]), dollars(c["maximum"]), _percent(c["rate_bp"]))


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
                a["count"], dollars(a["min"]), _mean_dollars(a["mean"]), dollars(a["max"]),
                "all within" if a["within_range"] else "NOT all within",
                dollars(c["minimum"]), dollars(c["maximum"])),
            "mean award %s vs expected (minimum + maximum) / 2 = %s: "
            "difference %s, %.2f standard errors" % (
                _mean_dollars(a["mean"]), _mean_dollars(a["expected_mean"]),
                _mean_dollars(a["mean"] - a["expected_mean"]), a["z"])]


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
    axes.set_ylabel("hits per %s bin" % dollars_brief((c["maximum"] - c["minimum"]) // bins))
    axes.set_title("Must-Hit-By Mystery %s: %s rounds x %d seats, seed %d"
                   % (c["name"], format(rep["rounds"], ","), rep["seats"], rep["seed"]))
    # Below the axes, so it never hides a bar.
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False)
    figure.tight_layout()
    figure.savefig(path, format="png")
    pyplot.close(figure)
