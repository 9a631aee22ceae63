# The twelve Must-Hit-By Mystery configurations of 58 Pa. Code 653b.1(c)(4):
# A-D, each for a $1, $2 or $5 minimum progressive wager. Money is kept in
# integer micro-dollars, so a wager in cents times a rate in basis points is
# an exact contribution (1.5% of $1 = 100 x 150 = 15,000 micro-dollars).
from micropython import const

from uth import sections

MICROS_PER_CENT = const(10_000)
MICROS_PER_DOLLAR = const(1_000_000)

# name: (minimum progressive wager in cents, minimum $, maximum $, rate in basis points)
_TABLE = {
    "A1": (100, 100, 200, 200),
    "A2": (200, 100, 200, 150),
    "A5": (500, 100, 250, 100),
    "B1": (100, 100, 500, 500),
    "B2": (200, 100, 500, 350),
    "B5": (500, 100, 500, 200),
    "C1": (100, 250, 500, 200),
    "C2": (200, 250, 500, 150),
    "C5": (500, 250, 500, 50),
    "D1": (100, 250, 1000, 500),
    "D2": (200, 250, 1000, 300),
    "D5": (500, 250, 1000, 200),
}
NAMES = tuple(sorted(_TABLE))
SECTION = "653b.1(c)(4)"
# The regulation's source note: a temporary provision, so an operator can see
# when the meter rests on one that has expired (uth/sections.py).
EFFECTIVE, EXPIRES = sections.dates(SECTION)


class Config:
    def __init__(self, name, min_wager_cents, minimum_dollars, maximum_dollars, rate_bp):
        self.name = name
        self.min_wager_cents = min_wager_cents
        self.minimum = minimum_dollars * MICROS_PER_DOLLAR  # micro-dollars
        self.maximum = maximum_dollars * MICROS_PER_DOLLAR
        self.rate_bp = rate_bp

    def contribution(self, wager_cents):
        # cents x basis points = micro-dollars, exactly.
        return wager_cents * self.rate_bp


def get(name):
    row = _TABLE.get(name)
    if row is None:
        raise ValueError("unknown mystery configuration %r (known: %s)"
                         % (name, " ".join(NAMES)))
    return Config(name, row[0], row[1], row[2], row[3])
