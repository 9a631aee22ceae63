# The Must-Hit-By configurations as 653b.1(c)(4) prints them, for tests that
# must not take their expected figures from the firmware: name ->
# (minimum progressive wager $, minimum $, maximum $, contribution rate %).
MICROS_PER_DOLLAR = 1_000_000

PRINTED = {
    "A1": (1, 100, 200, "2"),
    "A2": (2, 100, 200, "1.5"),
    "A5": (5, 100, 250, "1"),
    "B1": (1, 100, 500, "5"),
    "B2": (2, 100, 500, "3.5"),
    "B5": (5, 100, 500, "2"),
    "C1": (1, 250, 500, "2"),
    "C2": (2, 250, 500, "1.5"),
    "C5": (5, 250, 500, "0.5"),
    "D1": (1, 250, 1000, "5"),
    "D2": (2, 250, 1000, "3"),
    "D5": (5, 250, 1000, "2"),
}


def contribution(name, wager_cents):
    # The rate's printed percent applied to a wager, in micro-dollars, by
    # integer arithmetic on the printed digits: "3.5" % of $2 = 7 cents.
    whole, _, fraction = PRINTED[name][3].partition(".")
    numerator = int(whole + fraction)
    denominator = 100 * 10 ** len(fraction)
    micros = wager_cents * (MICROS_PER_DOLLAR // 100) * numerator
    assert micros % denominator == 0, "not a whole micro-dollar"
    return micros // denominator


def minimum_wager_cents(name):
    return PRINTED[name][0] * 100


def minimum(name):
    return PRINTED[name][1] * MICROS_PER_DOLLAR
