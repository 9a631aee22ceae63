# The meters of qualifying wagers (N.J.A.C. 13:69E-1.39A(b)(1)): how many
# progressive wagers qualified and contributed, and what they wagered, in
# micro-dollars as the other money meters. Expected figures come from the
# wagers placed and 653b.1(c)(1)'s rule (a UTH wager and at least the
# configuration's minimum progressive wager, regulation.py), never from the
# firmware's own figures.
import binascii
import json
import os

import tmpdir
from mystery.bonus import MysteryBonus
from mystery.copies import COPY_PAYLOAD, COPY_SEQ, Pair
from mystery.record import from_record, to_record
from mystery.store import Store
from regulation import contribution, minimum_wager_cents
from table_rig import Rig

CENT = 10_000  # micro-dollars
CONFIG = "A5"  # a $5 minimum progressive wager, 1%
# (seat, UTH wager placed, progressive wager in cents) for each LOCK.
ROUNDS = (
    [(1, True, 500), (2, True, 2500), (3, False, 500), (4, True, 499), (6, True, 500)],
    [(6, True, 10000)],
    [],
    [(1, False, 100), (2, True, 100)],
    [(5, True, 505), (3, True, 500)],
)


def _high_hit_value(n):
    # Bytes that draw a hit value no test round reaches.
    return (b"\x27\x0f" * 9)[:n]


def _qualifying(seats):
    return [cents for _, uth, cents in seats if uth and cents >= minimum_wager_cents(CONFIG)]


def _boot(root):
    bonus = MysteryBonus(Store(root), _high_hit_value)
    assert bonus.fault is None
    return bonus, bonus.boot()


def _started(root):
    bonus, events = _boot(root)
    assert events == []
    bonus.configure(CONFIG)
    bonus.reset()
    return bonus


@tmpdir.within
def test_each_lock_counts_the_qualifying_wagers_and_what_they_wagered(root):
    bonus = _started(root)
    count = wagered = contributed = 0
    for seats in ROUNDS:
        events = bonus.lock_round(seats)
        for cents in _qualifying(seats):
            count += 1
            wagered += cents * CENT
            contributed += contribution(CONFIG, cents)
        meters = bonus.meters()
        assert (meters["qualifying_wagers"], meters["wagered"]) == (count, wagered)
        # The round's record states the totals, as it states the meter.
        assert (events[0]["qualifying_wagers"], events[0]["wagered"]) == (count, wagered)
        assert meters["contributed"] == contributed
    assert (count, wagered) == (6, (500 + 2500 + 500 + 10000 + 505 + 500) * CENT)
    # One configuration throughout: contributed = wagered x its 1%.
    assert bonus.meters()["contributed"] * 100 == wagered


@tmpdir.within
def test_the_wager_meters_survive_a_restart_and_count_on(root):
    bonus = _started(root)
    for seats in ROUNDS[:2]:
        bonus.lock_round(seats)
    before = bonus.meters()
    again, events = _boot(root)
    assert events == [] and again.meters() == before
    again.lock_round(ROUNDS[4])
    assert again.meters()["qualifying_wagers"] == before["qualifying_wagers"] + 2
    assert again.meters()["wagered"] == before["wagered"] + (505 + 500) * CENT


def _newest_meter_copy(root):
    pair = Pair(root, ("meter.a", "meter.b"), ("UTHMETER3",), "meter")
    return pair.newest([])


def _write_old_form(root, copy):
    # The meter record as the firmware before the wager meters wrote it,
    # built here by hand: each number under its name, "UTHMETER2".
    payload = dict(copy[COPY_PAYLOAD])
    record = dict(payload["meter"])
    numbers = record.pop("n")
    names = ("meter", "contributed", "seeded", "paid", "hits", "cycle", "round", "reset_round",
             "qualifying_wagers", "wagered", "reset_meter", "hit_value")
    for index in range(len(names)):
        record[names[index]] = numbers[index]
    del record["qualifying_wagers"], record["wagered"]
    payload["meter"] = record
    body = json.dumps(payload, separators=(",", ":"))
    crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
    name = "meter.%s" % "ab"[copy[COPY_SEQ] % 2]
    for each in ("meter.a", "meter.b"):
        os.remove(root + "/" + each)
    with open(root + "/" + name, "w") as f:
        f.write("UTHMETER2 %d %08x\n%s\n" % (copy[COPY_SEQ], crc, body))
    return name


@tmpdir.within
def test_a_record_from_before_the_wager_meters_boots_and_counts_from_zero(root):
    # A board updated in the field keeps its store: its meters read back,
    # the wager meters from 0, and the next commit writes the current form.
    bonus = _started(root)
    bonus.lock_round(ROUNDS[0])
    before = bonus.meters()
    name = _write_old_form(root, _newest_meter_copy(root))
    old, events = _boot(root)
    assert events == [] and old.fault is None
    assert old.meters() == dict(before, qualifying_wagers=0, wagered=0)
    events = old.lock_round(ROUNDS[1])
    assert (events[0]["qualifying_wagers"], events[0]["wagered"]) == (1, 10000 * CENT)
    with open(root + "/" + name) as f:
        assert f.read().startswith("UTHMETER2 ")
    newest = _newest_meter_copy(root)
    assert newest is not None and newest[COPY_PAYLOAD]["meter"]["n"][8:10] == [1, 10000 * CENT]
    again, events = _boot(root)
    assert events == [] and again.meters() == old.meters()


@tmpdir.within
def test_a_record_whose_wager_meters_do_not_hold_is_refused(root):
    bonus = _started(root)
    bonus.lock_round(ROUNDS[0])
    record = to_record(bonus.meter)
    assert from_record(record, []).wagered == bonus.meter.wagered
    bad = []
    for index, value in ((8, -1), (9, -CENT), (9, CENT + 1), (9, "5")):
        numbers = list(record["n"])
        numbers[index] = value
        bad.append(numbers)
    bad += [record["n"][:-1], record["n"] + [0]]
    for numbers in bad:
        try:
            from_record(dict(record, n=numbers), [])
            raise AssertionError("a meter record with numbers %r read" % (numbers,))
        except ValueError as error:
            assert "inconsistent meter record" in str(error)


@tmpdir.within
def test_the_meters_command_gives_them_after_the_dealer_locks(root):
    # A1's minimum, $1 a chip: seats 1, 2 and 6 qualify; seat 4's chip is
    # on its spot without a UTH wager and does not.
    rig = Rig(root)
    rig.configure("A1")
    rig.uth[3].level = 0
    for seat in (1, 2, 4, 6):
        rig.chip(seat)
    rig.press_lock()
    meters = rig.command(cmd="meters")[-1]["meters"]
    assert (meters["qualifying_wagers"], meters["wagered"]) == (3, 3 * 100 * CENT)
    record = [r for r in rig.table.bonus.log_since(0) if r["ev"] == "round"][-1]
    assert (record["qualifying_wagers"], record["wagered"]) == (3, 3 * 100 * CENT)
