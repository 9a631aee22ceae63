# The floor's clock set for a board whose clock is unset (docs/host-link.md,
# "The clock"): {"cmd": "clock", "set": [Y, M, D, h, m, s], "auth"} from any
# host, no key switch, bound to this power-up's `start` record. Loaded only
# when such a command comes (a Pico's clock is unset at every power-up), and
# let go once it is answered, so that a keyed board's heap does not carry it.
from uth.let_go import let_go

from .record_mac import mac
from .refusal import Refused


def clock_auth(key, kid, seq, record_hash, when):
    # The HMAC the floor makes with the table's record key, over the start
    # record `seq` with its hash, and the time as six decimal numbers joined
    # by commas: so it sets no clock at a later start, and none already set.
    # Its own prefix. The floor's computation too (floor/collected.py).
    return mac(key, ("clock:%s:%d:%s:%d,%d,%d,%d,%d,%d"
                     % ((kid, seq, record_hash) + tuple(when))).encode())


def check(bonus, when, auth):
    # Taken only while the board's records say "clock": "unset"
    # (bonus.CLOCK_SET_FROM), with its record key, over this power-up's
    # start record; Refused otherwise, nothing changed. The module let go
    # either way.
    try:
        _check(bonus, when, auth)
    finally:
        let_go(__name__)


def _check(bonus, when, auth):
    from .bonus import CLOCK_SET_FROM

    store = bonus.store
    if bonus.fault is not None:
        raise Refused("fault: " + bonus.fault)
    if store.key is None:
        raise Refused("this board has no record key: its clock is set with the key switch held")
    if bonus.clock is None or bonus.clock() >= CLOCK_SET_FROM:
        raise Refused("the clock is set already: a signed clock set is taken only while it "
                      "is unset; hold the key switch to set it again")
    seq = bonus.started
    record_hash = None if seq is None else store.record_hash(seq)
    if record_hash is None:
        raise Refused("no start record of this power-up to bind a signed clock set to")
    if auth != clock_auth(store.key, store.key_id, seq, record_hash, when):
        raise Refused("the clock set does not verify with record key %s and this start "
                      "(record %d)" % (store.key_id, seq))
