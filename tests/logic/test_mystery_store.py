# The meter store on a real filesystem (the power-cut proof on littlefs is
# test_power_cut.py): what a reboot reads back, and what it refuses to trust.
import json
import os

import tmpdir
from mystery import chain
from mystery.bonus import MysteryBonus
from mystery.meter import Refused
from mystery.record import to_record
from mystery.store import Store

ROUND = [(1, True, 500), (2, True, 100), (3, False, 500)]


def _high_hit_value(n):
    # Bytes that draw A1's highest hit value ($199.99), so no test round hits.
    return (b"\x27\x0f" * 9)[:n]


def _bonus(root, **store_options):
    bonus = MysteryBonus(Store(root, **store_options), _high_hit_value)
    assert bonus.boot() == [] and bonus.fault is None
    return bonus


def _played(root, rounds=5, **store_options):
    bonus = _bonus(root, **store_options)
    bonus.configure("A1", True)
    bonus.reset()
    for _ in range(rounds):
        bonus.lock_round(ROUND)
    return bonus


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _reboot(root, **store_options):
    bonus = MysteryBonus(Store(root, **store_options), _high_hit_value)
    events = bonus.boot()
    return bonus, events


@tmpdir.within
def test_fresh_store_is_unconfigured(root):
    bonus = _bonus(root)
    assert bonus.meter.phase == "unconfigured" and bonus.meters()["log_seq"] == 0


@tmpdir.within
def test_reboot_reads_back_every_meter_and_the_secret(root):
    before = _played(root)
    after, events = _reboot(root)
    assert events == [] and after.fault is None
    assert to_record(after.meter) == to_record(before.meter)
    assert after.meters() == before.meters()
    records = list(after.log_since(1))
    assert [r["ev"] for r in records] == ["config", "reset"] + ["round"] * 5
    assert chain.verify(records, chain.GENESIS) == (True, "7 records chain")
    assert [r["seq"] for r in after.log_since(6)] == [6, 7]


@tmpdir.within
def test_both_copies_unreadable_is_a_fault_that_erases_nothing(root):
    _played(root)
    for name in ("meter.a", "meter.b"):
        data = bytearray(_read(root + "/" + name))
        data[-5] ^= 0x01  # one flipped bit in the payload: the CRC no longer matches
        _write(root + "/" + name, data)
    listing = sorted(os.listdir(root))
    snapshot = [_read(root + "/" + name) for name in ("meter.a", "meter.b")]
    bonus, events = _reboot(root)
    assert bonus.fault is not None and events[0]["ev"] == "fault"
    assert "no readable meter record" in bonus.fault
    try:
        bonus.lock_round(ROUND)
        raise AssertionError("a faulted store accepted a round")
    except Refused as error:
        assert "fault" in str(error)
    assert sorted(os.listdir(root)) == listing
    assert [_read(root + "/" + name) for name in ("meter.a", "meter.b")] == snapshot


@tmpdir.within
def test_an_unreadable_older_copy_falls_back_to_the_newer_and_says_so(root):
    before = _played(root, rounds=4)  # commits 0..6: the newest (6) is meter.a
    _write(root + "/meter.b", b"garbage")
    bonus, events = _reboot(root)
    assert events == [{"ev": "store_warning", "reason": "meter copy meter.b is unreadable"}]
    assert to_record(bonus.meter) == to_record(before.meter)
    assert bonus.meters()["log_seq"] == before.meters()["log_seq"]


@tmpdir.within
def test_an_unreadable_newest_copy_is_a_fault_not_a_lost_operation(root):
    _played(root, rounds=4)
    _write(root + "/meter.a", b"garbage")  # the older copy is one round behind
    bonus, events = _reboot(root)
    assert bonus.fault is not None and events[0]["ev"] == "fault"
    assert "newest meter copy is unreadable" in bonus.fault


@tmpdir.within
def test_an_altered_log_record_is_a_fault(root):
    _played(root)
    segment = root + "/log/" + sorted(os.listdir(root + "/log"))[0]
    original = _read(segment).decode()
    text = original.replace('"A1"', '"D1"', 1)  # the configuration event's name
    assert text != original
    _write(segment, text.encode())
    bonus, _ = _reboot(root)
    assert bonus.fault is not None and "altered" in bonus.fault


@tmpdir.within
def test_records_of_an_uncommitted_operation_are_dropped(root):
    before = _played(root)
    head = before.store.head_hash
    segment = root + "/log/" + sorted(os.listdir(root + "/log"))[-1]
    orphan = chain.link({"ev": "round", "round": 99, "contributions": [], "meter": 1},
                        before.store.head_seq + 1, head)
    with open(segment, "a") as f:
        f.write(json.dumps(orphan) + "\n")
    _write(root + "/meter.tmp", b"half a meter record")
    bonus, events = _reboot(root)
    assert events == [] and bonus.fault is None
    assert [r["seq"] for r in bonus.log_since(0)][-1] == before.store.head_seq
    assert "meter.tmp" not in os.listdir(root)
    bonus.lock_round(ROUND)  # play resumes and the chain goes on from the head
    records = list(bonus.log_since(0))
    assert records[-1]["prev"] == head and chain.verify(records)[0]


@tmpdir.within
def test_the_log_is_bounded_and_counts_what_it_dropped(root):
    bonus = _played(root, rounds=20, segment_records=4, segments_kept=2)
    assert len(os.listdir(root + "/log")) == 2
    kept = list(bonus.log_since(0))
    assert bonus.meters()["log_dropped"] == kept[0]["seq"] - 1 > 0
    assert kept[-1]["seq"] == 22 and chain.verify(kept)[0]
    again, _ = _reboot(root, segment_records=4, segments_kept=2)
    assert again.fault is None and again.meters() == bonus.meters()



# ---- the recent hits, stored beside the meter record ----

class _Draws:
    # A1's lowest hit value ($100.00: the first contribution hits) until
    # told otherwise.
    def __init__(self):
        self.pattern = b"\x00"

    def __call__(self, n):
        return (self.pattern * n)[:n]


def _with_hits(root, hits):
    # A table that hit, was paid and reset `hits` times, then plays on.
    draws = _Draws()
    bonus = MysteryBonus(Store(root), draws, lambda: 1_795_000_000)
    assert bonus.boot() == []
    bonus.configure("A1", True)
    bonus.reset()
    for number in range(hits):
        bonus.lock_round(ROUND)
        bonus.validate(("jackpot_slip", "table_inventory")[number % 2])
        if number == hits - 1:
            draws.pattern = b"\x27\x0f"
        bonus.reset()
    bonus.lock_round(ROUND)
    return bonus


@tmpdir.within
def test_recent_hits_come_back_after_a_reboot(root):
    before = _with_hits(root, 3)
    # A1 starts at $100.00 with a 2% rate and this draw's hit value is
    # $100.00: seat 1's $5 adds $0.10 and hits at $100.10; seat 2's $1 adds
    # $0.02 for the next cycle, whose awards are then $100.12.
    assert [hit[:5] for hit in before.meter.last_hits] == [
        [1, 100_100_000, 1, 1, "jackpot_slip"],
        [1, 100_120_000, 2, 2, "table_inventory"],
        [1, 100_120_000, 3, 3, "jackpot_slip"]]
    after, events = _reboot(root)
    assert events == [] and after.fault is None
    assert after.meter.last_hits == before.meter.last_hits
    assert after.meter.commitment == before.meter.commitment
    assert after.meters() == before.meters()


@tmpdir.within
def test_recent_hits_are_rewritten_only_when_a_hit_is_paid(root):
    bonus = _with_hits(root, 2)
    hits_seq = bonus.store.hits_seq
    written = {name: _read(root + "/" + name) for name in ("hits.a", "hits.b")}
    for _ in range(5):
        bonus.lock_round(ROUND)
    assert bonus.store.hits_seq == hits_seq == 2  # one write per validation
    assert {name: _read(root + "/" + name) for name in ("hits.a", "hits.b")} == written


@tmpdir.within
def test_a_hits_copy_the_meter_does_not_name_is_ignored(root):
    # A validation cut off after its hits copy landed but before its meter
    # record: the copy names a hits_seq no meter record does.
    before = _with_hits(root, 2)
    orphan = Store(root)
    orphan.hits_seq = before.store.hits_seq
    orphan._write_hits(before.meter.last_hits + [[4, 100000000, 9, 9, "jackpot_slip", 0]])
    after, events = _reboot(root)
    assert events == [] and after.fault is None
    assert after.meter.last_hits == before.meter.last_hits


@tmpdir.within
def test_the_named_hits_copy_unreadable_is_a_fault_that_erases_nothing(root):
    bonus = _with_hits(root, 3)  # hits_seq 3 lives in hits.b
    assert bonus.store.hits_seq == 3
    data = bytearray(_read(root + "/hits.b"))
    data[-5] ^= 0x01
    _write(root + "/hits.b", data)
    listing = sorted(os.listdir(root))
    again, events = _reboot(root)
    assert again.fault is not None and events[0]["ev"] == "fault"
    assert "recent hits" in again.fault and "unreadable" in again.fault
    assert sorted(os.listdir(root)) == listing and _read(root + "/hits.b") == bytes(data)


@tmpdir.within
def test_the_round_record_stays_inline_on_a_pico_after_twenty_years(root):
    # littlefs keeps a file inline in its metadata (no data block erased per
    # rewrite) up to min(cache, 1022, block / 8) bytes: with the Pico's
    # progsize=256 the cache is 4 x 256, so the limit is 4096 / 8 = 512.
    bonus = _with_hits(root, 25)
    m = bonus.meter
    years = 20 * 365 * 1500  # rounds at design.md's 1,500 a day
    m.round = m.reset_round = years
    m.cycle = m.hits = years // 100
    m.contributed = m.paid = years * 7 * 5_000_000 // 100  # seven $5 wagers at 1%
    m.pending = [7, 499_990_000, m.cycle, m.round, 2_426_000_000]
    m.phase = "pending"
    bonus.store.head_seq = years * 2
    bonus.store.commit(m, [])
    sizes = [os.stat(root + "/" + name)[6] for name in ("meter.a", "meter.b")]
    print("meter record after twenty years, a hit pending: %d bytes" % max(sizes))
    assert max(sizes) <= 512, sizes
