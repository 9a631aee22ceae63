# The meter store on a real filesystem (the power-cut proof on littlefs is
# test_power_cut.py): what a reboot reads back, and what it refuses to trust.
import json
import os

import tmpdir
from collecting import lock_collected, small_log
from mystery import chain
from mystery.bonus import MysteryBonus
from mystery.meter import Refused
from mystery.record import to_record
from mystery.store import TMP_NAME, Store

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
    bonus.configure("A1")
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
    _write(root + "/" + TMP_NAME, b"half a meter record")
    _write(root + "/meter.tmp", b"the same, named as an earlier firmware named it")
    bonus, events = _reboot(root)
    seq = before.store.head_seq + 1
    assert events == [{"ev": "store_warning", "reason": "an operation whose meter record never "
                       "landed (a power cut, or a bad record) did not happen: the round from "
                       "log record %d is dropped" % seq}]
    assert bonus.fault is None
    assert [r["seq"] for r in bonus.log_since(0)][-1] == before.store.head_seq
    assert TMP_NAME not in os.listdir(root) and "meter.tmp" not in os.listdir(root)
    bonus.lock_round(ROUND)  # play resumes and the chain goes on from the head
    records = list(bonus.log_since(0))
    assert records[-1]["prev"] == head and chain.verify(records)[0]


def test_a_dropped_round_that_hit_is_reported_as_any_dropped_round():
    # The report names the operation's kind only, never how many records it
    # wrote. (This hit record carries no value of the live cycle, so nothing
    # is exposed; one that does is reported on its own: test_mystery_exposed.)
    reports = []
    for hit in (False, True):
        root = tmpdir.make()
        try:
            before = _played(root)
            segment = root + "/log/" + sorted(os.listdir(root + "/log"))[-1]
            seq, prev = before.store.head_seq, before.store.head_hash
            events = [{"ev": "round", "round": 99, "contributions": [[1, 500, 100000]],
                       "meter": 1}]
            if hit:
                events.append({"ev": "hit", "seat": 1, "award": 1, "cycle": 1, "round": 99,
                               "time": None, "hit_value": 1, "salt": "00", "commitment": "x"})
            with open(segment, "a") as f:
                for event in events:
                    seq += 1
                    record = chain.link(event, seq, prev)
                    prev = record["hash"]
                    f.write(json.dumps(record) + "\n")
            bonus, events = _reboot(root)
            assert bonus.fault is None and len(events) == 1, events
            reports.append(events[0]["reason"])
        finally:
            tmpdir.remove(root)
    assert reports[0] == reports[1] and "hit" not in reports[1], reports


@tmpdir.within
def test_two_operations_past_the_meter_are_a_fault_not_a_power_cut(root):
    # A power cut leaves at most one operation's records past the meter
    # record; two mean the meter record went back, and play stops.
    # Commits: 0 the new store, 1 configure, 2 reset, 3-5 rounds 1-3 (log
    # records 1 config, 2 reset, 3-5 rounds). meter.a holds commit 4: round 2.
    bonus = _played(root, rounds=3)
    older = _read(root + "/meter.a")
    bonus.lock_round(ROUND)  # rounds 4 and 5: log records 6 and 7
    bonus.lock_round(ROUND)
    _write(root + "/meter.b", older)  # both copies commit 4: rounds 3, 4 and 5 past it
    _write(root + "/meter.a", older)
    log = {name: _read(root + "/log/" + name) for name in os.listdir(root + "/log")}
    again, events = _reboot(root)
    assert again.fault is not None and events[0]["ev"] == "fault"
    assert "3 operations past the meter record, from log record 5" in again.fault, again.fault
    assert {name: _read(root + "/log/" + name) for name in os.listdir(root + "/log")} == log


@tmpdir.within
def test_the_log_rotates_out_only_collected_records_and_loses_none(root):
    # Segments of 4 records, 2 kept; the mark at the head before each round
    # (as a floor's confirmations move it): the oldest segment goes, and the
    # meters' log_dropped, the records lost before collection, stays 0.
    bonus = _bonus(root)
    small_log(bonus.store, 4, 2)
    bonus.configure("A1")
    bonus.reset()
    for _ in range(20):
        lock_collected(bonus, ROUND)
    assert len(os.listdir(root + "/log")) == 2
    kept = list(bonus.log_since(0))
    assert bonus.store.dropped() == kept[0]["seq"] - 1 > 0
    assert bonus.meters()["log_dropped"] == 0
    assert kept[-1]["seq"] == 22 and chain.verify(kept)[0]
    again, _ = _reboot(root)
    small_log(again.store, 4, 2)
    assert again.fault is None and again.meters() == bonus.meters()
    # The segments the reboot found are the ones it goes on from (it keeps
    # their list in memory): the newest is filled, the oldest removed.
    for _ in range(9):
        lock_collected(again, ROUND)
    assert sorted(os.listdir(root + "/log")) == ["0000000025.log", "0000000029.log"]
    kept = list(again.log_since(0))
    assert [r["seq"] for r in kept] == list(range(25, 32)) and chain.verify(kept)[0]
    assert again.meters()["log_dropped"] == 0


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
    bonus.configure("A1")
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
def test_the_round_record_stays_inline_on_a_pico_after_forty_years(root):
    # littlefs keeps a file inline in its metadata (no data block erased per
    # rewrite) up to min(cache, 1022, block / 8) bytes: with the Pico's
    # progsize=256 the cache is 4 x 256, so the limit is 4096 / 8 = 512.
    # Every counter as forty years of D1 at 1,500 rounds a day would make it,
    # seven $5 wagers a round at D1's 5%, a hit every 100 rounds.
    bonus = _with_hits(root, 25)
    m, store = bonus.meter, bonus.store
    rounds = 40 * 365 * 1500
    m.config, m.round, m.reset_round = "D1", rounds, rounds
    m.cycle = m.hits = rounds // 100
    m.contributed = m.paid = rounds * 7 * 500 * 500  # cents x basis points
    m.qualifying_wagers = rounds * 7
    m.wagered = rounds * 7 * 500 * 10_000  # micro-dollars
    m.seeded = m.cycle * 1_000_000_000
    m.meter = m.seeded + m.contributed - m.paid
    store.commit_seq, store.head_seq = rounds * 2, rounds * 3
    store.drbg_copy = 1  # a seeded board's record names its generator's state (store.py)
    store.key_id = "9c41e07b5d2a3f68"  # and a signed board's its record key (16 hex digits)
    largest = 0
    for phase, pending in (("pending", [7, 999_990_000, m.cycle, m.round, 3_057_000_000]),
                           ("awaiting_reset", None), ("running", None)):
        m.phase, m.pending = phase, pending
        if phase == "awaiting_reset":
            m._hit_value, m._salt = 0, ""  # revealed; the commitment is kept
        store.commit(m, [])
        largest = max(largest, os.stat(root + "/meter.%s" % "ab"[store.commit_seq % 2])[6])
    print("meter record after forty years of D1, the largest phase: %d bytes" % largest)
    assert largest <= 512, largest


@tmpdir.within
def test_a_store_written_before_the_hits_had_copies_is_read_and_rewritten(root):
    # The earlier form, built here by hand: one record holding everything,
    # the recent hits and the commitment included, JSON with spaces, under
    # the header "UTHMETER1 <commit> <crc32>".
    import binascii

    before = _with_hits(root, 2)
    m, store = before.meter, before.store
    meter = {name: getattr(m, name) for name in (
        "meter", "contributed", "seeded", "paid", "hits", "cycle", "round", "reset_round",
        "config", "phase", "commitment", "pending", "last_hits")}
    meter.update(hit_value=m._hit_value, salt=m._salt)
    body = json.dumps({"meter": meter, "log_seq": store.head_seq, "log_hash": store.head_hash})
    crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
    for name in os.listdir(root):
        if name.startswith(("meter.", "hits.")):
            os.remove(root + "/" + name)
    copy = "meter.%s" % "ab"[store.commit_seq % 2]  # commits alternate a, b, a, ...
    newer = "meter.%s" % "ab"[1 - store.commit_seq % 2]
    _write(root + "/" + copy, ("UTHMETER1 %d %08x\n%s\n" % (store.commit_seq, crc, body)).encode())

    old, events = _reboot(root)
    assert events == [] and old.fault is None
    # The wager meters were not kept then: they count from this firmware on.
    expected = dict(before.meters(), qualifying_wagers=0, wagered=0)
    assert old.meter.last_hits == m.last_hits and old.meters() == expected
    old.lock_round(ROUND)  # the next commit writes the current form
    assert sorted(os.listdir(root)) == ["hits.b", "log", "meter.a", "meter.b"]
    assert _read(root + "/" + copy).startswith(b"UTHMETER1 ")
    assert _read(root + "/" + newer).startswith(b"UTHMETER3 ")
    again, events = _reboot(root)
    assert events == [] and again.fault is None
    assert again.meter.last_hits == m.last_hits and again.meters() == old.meters()


@tmpdir.within
def test_an_unreadable_older_copy_with_recent_hits_still_reads_the_newer(root):
    before = _with_hits(root, 2)
    older = "meter.%s" % "ab"[1 - before.store.commit_seq % 2]
    _write(root + "/" + older, b"garbage")
    bonus, events = _reboot(root)
    assert events == [{"ev": "store_warning", "reason": "meter copy %s is unreadable" % older}]
    assert bonus.meter.last_hits == before.meter.last_hits
    assert bonus.meters() == before.meters()


def test_recent_hits_that_are_not_the_meters_are_refused():
    # A meter with two hits paid must come with exactly two recent hits.
    from mystery.record import from_record

    root = tmpdir.make()
    try:
        bonus = _with_hits(root, 2)
        record = to_record(bonus.meter)
        hits = bonus.meter.last_hits
    finally:
        tmpdir.remove(root)
    assert from_record(record, hits).last_hits == hits
    for wrong in (hits[:1], hits + hits[:1], []):
        try:
            from_record(record, wrong)
            raise AssertionError("recent hits of another meter accepted: %r" % (wrong,))
        except ValueError as error:
            assert "recent hits do not match" in str(error)
