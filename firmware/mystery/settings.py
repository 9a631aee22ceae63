# The table's settings: the rules an operator's Rules Submission may read
# differently from this project's defaults (rules.md), each changed in
# service mode without a firmware rebuild, logged, and kept in the meter's
# committed state (record.py). One table: name -> (default, validator, what
# it is). The meter keeps only the values that differ from their defaults,
# so a store written before a setting existed reads as its default.
#
# A validator takes the value asked for and the Mystery configuration it must
# fit (None before the table is configured), and gives the value to keep or
# raises Refused with the reason. A configuration change is checked against
# the settings in force the same way (Meter.configure).
from micropython import const

from . import table_rules
from .refusal import Refused

# The most a fixed progressive wager may be: a guard against a mistyped amount.
_MAX_WAGER_CENTS = const(100_000)

CARRY = "carry"
MINIMUM = "minimum"
RESETS = (CARRY, MINIMUM)


def _wager_cents(value, config):
    # 653b.1(c)(2): the sensors see a chip, not its value, so the table
    # takes every progressive chip as this fixed amount. None: the
    # configuration's minimum progressive wager.
    if value is None:
        return None
    if type(value) is not int or not 0 < value <= _MAX_WAGER_CENTS:
        raise Refused("wager_cents must be whole cents from 1 to %d, or null for the "
                      "configuration's minimum" % _MAX_WAGER_CENTS)
    if config is not None and value < config.min_wager_cents:
        raise Refused("wager_cents %d is under configuration %s's minimum progressive wager "
                      "of %d cents (653b.1(c)(4))" % (value, config.name,
                                                      config.min_wager_cents))
    return value


def _reset(value, config):
    if value not in RESETS:
        raise Refused("reset must be one of %s" % ", ".join(RESETS))
    return value


_TABLE = {
    "wager_cents": (None, _wager_cents,
                    "each progressive chip's amount, cents; null: the configuration's minimum"),
    "reset": (CARRY, _reset,
              "after a hit: carry the rest into the next cycle, or minimum and retain it"),
}
_TABLE.update(table_rules.SETTINGS)  # paytables, max_payout_cents, the Bad Beat rules
NAMES = tuple(sorted(_TABLE))


def _entry(name):
    entry = _TABLE.get(name) if type(name) is str else None
    if entry is None:
        raise Refused("unknown setting %r (known: %s)" % (name, " ".join(NAMES)))
    return entry


def default(name):
    return _entry(name)[0]


def description(name):
    return _entry(name)[2]


def validate(name, value, config=None):
    # The value to keep; Refused, with the reason, for a name or value that
    # will not do.
    return _entry(name)[1](value, config)


def value(kept, name):
    # A setting's value in force, from the values a meter keeps.
    return kept[name] if name in kept else _entry(name)[0]


def in_force(kept):
    # Every setting's value, defaults included, as status and meters show them.
    return {name: value(kept, name) for name in NAMES}


def check_kept(kept, config):
    # The settings a meter keeps, against a configuration (a change to it, or
    # a stored record read at boot): Refused names the first that does not fit.
    for name in kept:
        validate(name, kept[name], config)
