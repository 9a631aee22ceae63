# The Must-Hit-By Mystery meter against figures worked by hand from 653b.1:
# configuration A1 is a $1 minimum wager, $100 minimum, $200 maximum, 2%
# (200 basis points); money in micro-dollars (1 cent = 10,000).
import binascii
import hashlib

from mystery import configs
from mystery.meter import Meter, Refused
from regulation import PRINTED
from scripted import SALT_HEX, source_for

DOLLAR = 1_000_000
CENT = 10_000


def _started(name, *candidates, size=2):
    meter = Meter()
    meter.configure(name)
    source = source_for(*candidates, size=size)
    meter.reset(source)
    return meter, source


def _balanced(meter):
    return meter.seeded + meter.contributed == meter.paid + meter.meter


def test_the_twelve_configurations_as_printed():
    printed = PRINTED  # minimum wager $, minimum $, maximum $, rate % (as text)
    assert sorted(configs.NAMES) == sorted(printed)
    for name, (wager, low, high, rate) in printed.items():
        config = configs.get(name)
        assert config.min_wager_cents == wager * 100
        assert (config.minimum, config.maximum) == (low * DOLLAR, high * DOLLAR)
        assert config.rate_bp == round(float(rate) * 100)
    # 653b.1's source note: effective September 4, 2021, expiring September 4, 2024.
    assert (configs.SECTION, configs.EFFECTIVE, configs.EXPIRES) == (
        "653b.1(c)(4)", "2021-09-04", "2024-09-04")


def test_reset_seeds_the_minimum_and_commits_to_the_hit_value():
    meter, _ = _started("A1", 5000)  # $100.00 + 5,000 cents = $150.00
    assert meter.meter == 100 * DOLLAR and meter.seeded == 100 * DOLLAR
    assert meter.cycle == 1 and meter.phase == "running"
    digest = hashlib.sha256(("15000:" + SALT_HEX).encode()).digest()
    assert meter.commitment == binascii.hexlify(digest).decode()


def test_contributions_in_seat_order_only_from_qualifying_seats():
    meter, _ = _started("A1", 5000)
    events = meter.lock_round([(4, True, 100), (2, False, 500), (3, True, 50), (1, True, 500)])
    # Seat 1: $5 x 2% = 10 cents; seat 4: $1 x 2% = 2 cents; seat 2 has no UTH
    # wager; seat 3's 50 cents is below A1's $1 minimum. Two wagers qualify:
    # $6 wagered.
    assert events == [{"ev": "round", "round": 1, "meter": 100 * DOLLAR + 120_000,
                       "contributions": [[1, 500, 100_000], [4, 100, 20_000]],
                       "qualifying_wagers": 2, "wagered": 600 * CENT}]
    assert meter.contributed == 120_000 and _balanced(meter)


def test_fractions_of_a_cent_are_kept():
    meter, _ = _started("A2", 5000)  # A2: 1.5%, $2 minimum wager
    meter.lock_round([(1, True, 300)])  # $3 x 1.5% = 4.5 cents
    assert meter.meter == 100 * DOLLAR + 45_000
    meter.lock_round([(1, True, 300)])
    assert meter.meter == 100 * DOLLAR + 90_000  # 9 cents, nothing rounded away


def test_hit_pays_the_seat_that_crosses_and_later_seats_feed_the_next_cycle():
    meter, source = _started("A1", 5)  # hit value $100.05
    events = meter.lock_round([(1, True, 500), (4, True, 100)])
    # Seat 1 takes the meter to $100.10, above $100.05: it wins $100.10.
    hit = events[1]
    assert (hit["ev"], hit["seat"], hit["award"]) == ("hit", 1, 100 * DOLLAR + 10 * CENT)
    assert (hit["hit_value"], hit["salt"]) == (100 * DOLLAR + 5 * CENT, SALT_HEX)
    assert meter.phase == "pending" and meter.display() == 10010
    assert meter.meter == 100 * DOLLAR + 120_000 and _balanced(meter)  # seat 4's 2 cents
    meter.validate("table_inventory")
    assert meter.paid == 100_100_000 and meter.meter == 20_000 and meter.hits == 1
    assert meter.last_hits == [[1, 100_100_000, 1, 1, "table_inventory", None]]
    source.chunks[:0] = source_for(7000).chunks
    meter.reset(source)
    assert meter.meter == 100 * DOLLAR + 20_000 and meter.cycle == 2 and _balanced(meter)


def test_award_is_capped_at_the_maximum_and_the_rest_carries():
    meter, _ = _started("A1", 9999)  # hit value $199.99
    meter.lock_round([(1, True, 500_250)])  # $5,002.50 x 2% = $100.05 -> meter $200.05
    assert meter.pending[1] == 200 * DOLLAR
    meter.validate("jackpot_slip")
    assert meter.meter == 5 * CENT and _balanced(meter)


def test_below_a_cent_stays_in_the_meter():
    meter, _ = _started("A2", 0)  # hit value $100.00 exactly
    meter.lock_round([(2, True, 300)])  # meter $100.045: above the hit value
    assert meter.pending == [2, 100 * DOLLAR + 4 * CENT, 1, 1, None]
    meter.validate("table_inventory")
    assert meter.meter == 5_000  # half a cent carried


def test_a_meter_equal_to_the_hit_value_is_not_in_excess_of_it():
    meter, _ = _started("A1", 10)  # $100.10
    events = meter.lock_round([(1, True, 500)])  # exactly $100.10
    assert [e["ev"] for e in events] == ["round"] and meter.phase == "running"
    assert meter.lock_round([(1, True, 100)])[1]["ev"] == "hit"


def _refused(call, *args):
    try:
        call(*args)
    except Refused as error:
        return str(error)
    raise AssertionError("not refused: %r" % (args,))


def test_no_round_while_a_hit_is_pending_and_refusals_change_nothing():
    meter, _ = _started("A1", 5)
    meter.lock_round([(1, True, 500)])
    before = (meter.meter, meter.round, meter.contributed, meter.phase)
    assert "pending" in _refused(meter.lock_round, [(1, True, 500)])
    assert "at a reset" in _refused(meter.configure, "B1")
    assert "payment" in _refused(meter.validate, "cash")
    assert (meter.meter, meter.round, meter.contributed, meter.phase) == before


def test_bad_seats_are_refused_whole():
    meter, _ = _started("A1", 5000)
    for seats in ([(1, True, 500), (1, True, 500)], [(8, True, 500)], [(1, True, -5)],
                  [(1, True, 2.5)], [(1, "yes", 500)], [(True, True, 500)]):
        _refused(meter.lock_round, seats)
    assert meter.meter == 100 * DOLLAR and meter.round == 0


def test_configuration_changes_only_at_a_reset():
    meter = Meter()
    assert "unknown mystery configuration 'Z9'" in _refused(meter.configure, "Z9")
    events = meter.configure("D5")
    assert events == [{"ev": "config", "config": "D5", "was": None}]
    meter.reset(source_for(0, size=3))  # D5 spans 75,000 cent values: 17 bits
    assert meter.meter == 250 * DOLLAR
    meter.lock_round([(1, True, 500)])  # a round played: the cycle is under way
    assert "at a reset" in _refused(meter.configure, "A1")


def test_a_cycle_no_round_has_played_may_change_configuration():
    # D5 seeded $250 and drew its secret; no round came. Changing to A1 closes
    # that cycle: its $250 seed is withdrawn and its hit value revealed, and
    # A1's reset seeds $100, so the identity holds throughout.
    meter, source = _started("D5", 7, size=3)
    events = meter.configure("A1")
    assert events == [{"ev": "config", "config": "A1", "was": "D5", "withdrawn": 250 * DOLLAR,
                       "cycle": 1, "hit_value": 250 * DOLLAR + 7 * CENT, "salt": SALT_HEX}]
    assert meter.meter == 0 and meter.seeded == 0 and _balanced(meter)
    source.chunks[:0] = source_for(5000).chunks
    meter.reset(source)
    assert (meter.meter, meter.seeded, meter.cycle) == (100 * DOLLAR, 100 * DOLLAR, 2)


def test_a_carry_survives_a_configuration_change_after_a_hit():
    meter, source = _started("A1", 5)
    meter.lock_round([(1, True, 500), (4, True, 100)])  # seat 4's 2 cents carry
    meter.validate("table_inventory")
    source.chunks[:0] = source_for(9000).chunks
    meter.reset(source)
    meter.configure("B1")  # at a reset: cycle 2 has seen no round
    source.chunks[:0] = source_for(0, size=2).chunks
    meter.reset(source)
    assert meter.meter == 100 * DOLLAR + 20_000 and _balanced(meter)


def test_last_hits_keeps_twenty_five():
    meter, source = _started("A1", 0)
    for n in range(30):
        meter.lock_round([(1 + n % 7, True, 100)])
        meter.validate("table_inventory")
        source.chunks[:0] = source_for(0).chunks
        meter.reset(source)
    assert meter.hits == 30 and len(meter.last_hits) == 25
    assert meter.last_hits[-1][2] == 30 and meter.last_hits[0][2] == 6
    assert _balanced(meter)
