# A meter's persistent form, and the checks a stored one must pass before
# play may resume. The hit value and salt are in the record (non-volatile
# storage must keep them across a power cut) but never in public_meters().
#
# The record is rewritten every round, so it is kept small enough to live
# inline in littlefs's metadata on a Pico (docs/testing.md, "Power cuts and
# flash wear"): the recent hits, the settings and the retained total, which
# change only at a validation or a setting's change, are stored beside it by
# the store, and a live cycle's commitment is recomputed from its hit value
# and salt rather than stored. Its whole numbers are one list in a fixed
# order (_NUMBERS), not each under its name: the names took a fifth of the
# record, and the wager meters would not have fitted beside them.
from . import configs, hitvalue, settings
from .configs import MICROS_PER_CENT
from .meter import (
    HIT_PAYMENT,
    LAST_HITS,
    PAYMENTS,
    PENDING,
    PENDING_AWARD,
    PHASES,
    RUNNING,
    UNCONFIGURED,
    Meter,
)
from .refusal import Refused

_INTS = ("meter", "contributed", "seeded", "paid", "hits", "cycle", "round", "reset_round",
         "qualifying_wagers", "wagered")
_PUBLIC = _INTS + ("config", "phase", "commitment", "pending", "last_hits", "exposed")
# The record's list "n": never reordered, only added to at its end.
_NUMBERS = _INTS + ("reset_meter", "_hit_value")
_STORED = ("config", "phase", "pending")


def _live(m):
    return m.phase in (RUNNING, PENDING)


def to_record(m):
    # Everything but the recent hits; the commitment only when no live
    # cycle's hit value and salt give it back.
    record = {name: getattr(m, name) for name in _STORED}
    record["n"] = [getattr(m, name) for name in _NUMBERS]
    record["salt"] = m._salt
    if m.exposed:  # rare: stored only when set, to keep the record small
        record["exposed"] = True
    if not _live(m):
        record["commitment"] = m.commitment
    return record


def public_meters(m):
    meters = {name: getattr(m, name) for name in _PUBLIC}
    meters["display_cents"] = m.display()
    meters["retained"] = m.retained
    meters["settings"] = settings.in_force(m.settings)
    return meters


def _check(condition, message):
    if not condition:
        raise ValueError("inconsistent meter record: " + message)


def _check_live_cycle(m):
    config = configs.get(m.config)
    _check(m._hit_value % MICROS_PER_CENT == 0, "hit value not a whole cent")
    _check(config.minimum <= m._hit_value < config.maximum, "hit value out of range")
    _check(m.reset_meter <= m.meter, "meter below its reset")
    _check(type(m._salt) is str and len(m._salt) == 32, "salt")


def _check_meter(m):
    _check(m.phase in PHASES, "phase %r" % (m.phase,))
    for name in _INTS:
        _check(type(getattr(m, name)) is int and getattr(m, name) >= 0, name)
    _check(type(m.retained) is int and m.retained >= 0, "retained")
    _check(m.balanced(), "seeded + contributed != paid + meter + retained")
    _check(m.reset_round <= m.round, "reset round after the last round")
    _check(m.wagered % MICROS_PER_CENT == 0, "wagered not a whole cent")
    _check(type(m.reset_meter) is int and 0 <= m.reset_meter, "reset meter")
    _check(m.exposed is False or (m.exposed is True and m.phase == RUNNING), "exposed")
    _check(m.phase == UNCONFIGURED or m.config in configs.NAMES, "config %r" % (m.config,))
    _check((m.phase == PENDING) == (m.pending is not None), "pending hit")
    if _live(m):
        _check_live_cycle(m)
    if m.pending is not None:
        _check(len(m.pending) == 5 and 0 < m.pending[PENDING_AWARD] <= m.meter, "pending award")
    # The recent hits come from a copy of their own: they must be this meter's.
    _check(len(m.last_hits) == min(m.hits, LAST_HITS), "recent hits do not match the hit count")
    for hit in m.last_hits:
        _check(len(hit) == 6 and hit[HIT_PAYMENT] in PAYMENTS, "last hit %r" % (hit,))
    _check_settings(m)


def _check_settings(m):
    _check(type(m.settings) is dict, "settings")
    config = configs.get(m.config) if m.config in configs.NAMES else None
    for name in m.settings:
        try:
            kept = settings.validate(name, m.settings[name], config)
        except Refused as error:
            raise ValueError("inconsistent meter record: %s" % error) from None
        _check(kept != settings.default(name), "setting %s stored at its default" % name)


def from_record(record, last_hits, kept_settings=None, retained=0):
    # The recent hits, the settings and the retained total come from the
    # store's hits copy, not from the record. Raises ValueError when any
    # field is missing, mistyped or out of line.
    m = Meter()
    try:
        for name in _STORED:
            setattr(m, name, record[name])
        numbers = record.get("n")
        if numbers is None:  # a record from before the list
            from .oldrecord import numbers_of

            numbers = numbers_of(record)
        if len(numbers) != len(_NUMBERS):
            raise ValueError("inconsistent meter record: %d numbers" % len(numbers))
        for index in range(len(_NUMBERS)):
            setattr(m, _NUMBERS[index], numbers[index])
        m.exposed = record.get("exposed", False)
        m.retained = retained
        m.settings = dict(kept_settings or {})
        m._salt = record["salt"]
        m.last_hits = list(last_hits)
        if not _live(m):
            m.commitment = record["commitment"]
    except (KeyError, TypeError):
        raise ValueError("inconsistent meter record: missing fields") from None
    _check_meter(m)
    if _live(m):
        m.commitment = hitvalue.commitment(m._hit_value, m._salt)
    return m
