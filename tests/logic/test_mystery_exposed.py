# A commit that fails halfway (a full flash, a failing write, a power cut)
# may leave the operation's log records on flash past the meter's log head.
# Those records are never sent, whatever the state; a hit value they carry
# is never played on again: play is refused until a service-mode redraw,
# itself a logged operation, replaces it. The flash failing here is real on
# both runtimes: the meter copy the commit writes is made a folder
# (broken_writes.py), so opening it for writing fails after the log records
# have landed.
import json
import os

import tmpdir
from broken_writes import break_meter_writes, mend_meter_writes
from leaks import leaks, secrets_of
from mystery import hitvalue
from mystery.configs import MICROS_PER_CENT
from scripted import SALT, ScriptedBytes
from table_rig import Rig

SALT_HEX = "000102030405060708090a0b0c0d0e0f"
REDRAW_SALT = bytes(range(16, 32))
A1_MINIMUM = 100 * 1_000_000
A1_MAXIMUM = 200 * 1_000_000
TWO_CENTS = 2 * MICROS_PER_CENT  # A1: 2% of the $1 chip


def _source(first, redraw=7):
    # The first cycle's hit value `first` cents above A1's $100; a redraw's
    # `redraw` cents above the bottom of its range; then A1's highest value.
    return ScriptedBytes([first.to_bytes(2, "big"), SALT, redraw.to_bytes(2, "big"),
                          REDRAW_SALT] + [b"\x27\x0f", SALT] * 10)


def _round(rig, seat=1):
    rig.chip(seat)
    rig.press_lock()
    rig.chip(seat, False)
    rig.run(300)


def _hit_fails(root):
    # Hit value $100.05 (seat 1's 2 cents a round): rounds 1 and 2 take the
    # meter to $100.04, round 3 to $100.06 and hits, but its meter record
    # cannot be written. Gives the rig and the value.
    rig = Rig(root, random_bytes=_source(5))
    rig.configure("A1")
    _round(rig)
    _round(rig)
    value = rig.table.bonus.meter._hit_value
    assert value == A1_MINIMUM + 5 * MICROS_PER_CENT
    break_meter_writes(root)
    rig.chip(1)
    rig.press_lock()
    assert rig.table.state == "fault" and rig.events("hit") == []
    return rig, value


def _shows(lines, value):
    # The lines that show the value or its salt.
    return [line for line in lines if leaks(json.loads(line), secrets_of(value), SALT_HEX)]


@tmpdir.within
def test_the_log_in_a_fault_sends_only_committed_records(root):
    rig, value = _hit_fails(root)
    head = rig.table.bonus.store.head_seq
    replies = rig.command(cmd="log", since=0)
    records = [reply["record"] for reply in replies[:-1]]
    assert [r["seq"] for r in records] == list(range(1, head + 1)), records
    assert [r["ev"] for r in records] == ["config", "reset", "service", "round", "round"]
    assert replies[-1] == {"ok": True, "reply": "log", "count": head}
    assert rig.command(cmd="log", since=head + 1)[-1]["count"] == 0
    rig.command(cmd="status")
    rig.command(cmd="meters")
    assert _shows(rig.lines, value) == []


@tmpdir.within
def test_a_store_that_never_read_its_meter_sends_no_log(root):
    rig = Rig(root)
    rig.configure("A1")
    _round(rig)
    for name in ("meter.a", "meter.b"):
        with open(root + "/" + name, "w") as f:
            f.write("not a meter")
    broken = Rig(root)
    assert broken.table.state == "fault"
    assert broken.command(cmd="log", since=0) == [{"ok": True, "reply": "log", "count": 0}]


@tmpdir.within
def test_a_hit_value_an_uncommitted_hit_wrote_is_never_played_on(root):
    rig, value = _hit_fails(root)
    mend_meter_writes(root)  # space freed, the board restarted
    again = Rig(root, random_bytes=_source(5))
    reasons = [e["reason"] for e in again.events("store_warning")]
    assert len(reasons) == 2 and "the round from log record 6 is dropped" in reasons[0]
    assert "cycle 1's hit value was written to flash" in reasons[1], reasons
    meters = again.command(cmd="meters")[-1]["meters"]
    assert meters["exposed"] is True and meters["meter"] == A1_MINIMUM + 2 * TWO_CENTS
    assert again.command(cmd="status")[-1]["exposed"] is True  # what a technician looks at
    again.chip(1)
    again.press_lock()
    refused = again.events("refused")
    assert again.events("locked") == [] and len(refused) == 1
    assert "redraw it" in refused[0]["reason"], refused
    # Nor after another restart: the mark is on flash.
    third = Rig(root, random_bytes=_source(5))
    third.chip(1)
    third.press_lock()
    assert third.events("locked") == [] and len(third.events("refused")) == 1
    assert _shows(rig.lines + again.lines + third.lines, value) == []


@tmpdir.within
def test_a_redraw_in_service_mode_reveals_the_old_value_and_play_resumes(root):
    _, value = _hit_fails(root)
    mend_meter_writes(root)
    rig = Rig(root, random_bytes=ScriptedBytes([(7).to_bytes(2, "big"), REDRAW_SALT]))
    old = rig.table.bonus.meters()
    assert rig.command(cmd="redraw")[-1] == {"ok": False,
                                            "error": "a redraw only in service mode"}
    rig.key.level = 1
    rig.run(100)
    reply = rig.command(cmd="redraw", id=4)
    redraw = rig.events("redraw")
    assert len(redraw) == 1 and reply[-1] == {"ok": True, "reply": "redraw", "cycle": 1,
                                              "commitment": redraw[0]["commitment"], "id": 4}
    event = redraw[0]
    # The old value and salt, as its commitment published at the reset.
    assert (event["hit_value"], event["salt"], event["revealed"]) == (
        value, SALT_HEX, old["commitment"])
    assert hitvalue.commitment(value, SALT_HEX) == old["commitment"]
    # A contribution left the meter at $100.04 without a hit: the new value is
    # drawn over [$100.04, $199.99], here 7 cents up.
    new_value = A1_MINIMUM + 4 * MICROS_PER_CENT + 7 * MICROS_PER_CENT
    assert event["commitment"] == hitvalue.commitment(new_value, REDRAW_SALT.hex())
    assert rig.command(cmd="redraw")[-1]["ok"] is False  # once: the value is no longer exposed
    rig.key.level = 0
    rig.run(100)
    meters = rig.table.bonus.meters()
    assert meters["exposed"] is False and meters["commitment"] == event["commitment"]
    assert rig.command(cmd="status")[-1]["exposed"] is False
    assert {k: meters[k] for k in ("meter", "seeded", "contributed", "paid", "cycle", "round")} \
        == {k: old[k] for k in ("meter", "seeded", "contributed", "paid", "cycle", "round")}
    assert meters["log_seq"] == old["log_seq"] + 3  # service entered, redraw, service left
    # $100.04 + 2 cents = $100.06: not above $100.11. Three more rounds hit.
    for _ in range(4):
        _round(rig)
    hit = rig.events("hit")
    assert len(hit) == 1 and (hit[0]["hit_value"], hit[0]["round"]) == (new_value, 6)
    assert hit[0]["commitment"] == event["commitment"]
    restarted = Rig(root)
    assert restarted.events("store_warning") == [] and restarted.table.state == "hit_pending"


@tmpdir.within
def test_a_configuration_that_closed_a_cycle_and_did_not_commit_exposes_it(root):
    # Closing an unplayed cycle reveals its value in the config record. No
    # contribution yet: the redraw draws over A1's whole range, as a reset.
    rig = Rig(root, random_bytes=_source(5))
    rig.configure("A1")
    value = rig.table.bonus.meter._hit_value
    rig.key.level = 1
    rig.run(100)
    break_meter_writes(root)
    assert rig.command(cmd="config", mystery="B1")[-1]["ok"] is False
    assert rig.table.state == "fault"
    assert [r["record"]["ev"] for r in rig.command(cmd="log")[:-1]] == [
        "config", "reset", "service", "service"]  # (left after the configuration, entered)
    mend_meter_writes(root)
    again = Rig(root, random_bytes=ScriptedBytes([(7).to_bytes(2, "big"), REDRAW_SALT]))
    assert again.table.bonus.meter.exposed and again.table.bonus.meter.config == "A1"
    again.key.level = 1
    again.run(100)
    assert again.command(cmd="redraw")[-1]["ok"] is True
    event = again.events("redraw")[0]
    assert event["hit_value"] == value
    assert event["commitment"] == hitvalue.commitment(A1_MINIMUM + 7 * MICROS_PER_CENT,
                                                      REDRAW_SALT.hex())
    assert _shows(rig.lines, value) == []


@tmpdir.within
def test_a_dropped_round_that_did_not_hit_exposes_nothing(root):
    rig = Rig(root, random_bytes=_source(50))
    rig.configure("A1")
    _round(rig)
    break_meter_writes(root)
    rig.chip(1)
    rig.press_lock()
    assert rig.table.state == "fault"
    mend_meter_writes(root)
    again = Rig(root)
    assert len(again.events("store_warning")) == 1 and not again.table.bonus.meter.exposed
    again.chip(1)
    again.press_lock()
    assert len(again.events("locked")) == 1


@tmpdir.within
def test_a_full_flash_refuses_the_round_and_writes_nothing(root):
    rig = Rig(root)
    rig.configure("A1")
    _round(rig)
    store = rig.table.bonus.store
    before = _snapshot(root)
    meters = rig.table.bonus.meters()
    reserve, store.reserve_blocks = store.reserve_blocks, 1 << 40  # more than any flash has
    rig.chip(1)
    rig.press_lock()
    refused = rig.events("refused")
    assert len(refused) == 1 and refused[0]["reason"].startswith("flash full: "), refused
    assert rig.table.state == "betting" and rig.table.bonus.fault is None
    assert _snapshot(root) == before and rig.table.bonus.meters() == meters
    store.reserve_blocks = reserve
    rig.press_lock()
    assert len(rig.events("locked")) == 2


@tmpdir.within
def test_a_reset_refused_after_a_validation_is_done_at_the_next_lock(root):
    rig = Rig(root, random_bytes=_source(1))
    rig.configure("A1")
    rig.chip(1)
    rig.chip(2)
    rig.press_lock()  # $100.04 > $100.01: seat 2 hits
    assert rig.table.state == "hit_pending"
    store = rig.table.bonus.store
    checks = []

    def full_after_one():
        # Room for the validation, none for the reset that follows it.
        checks.append(1)
        return None if len(checks) == 1 else "flash full: a test's"

    store.room_problem = full_after_one
    rig.turn_key()
    assert [e["ev"] for e in rig.events()][-3:] == ["validated", "paid", "refused"]
    # The hit's round is still in play: its chips have not left their spots,
    # so the table stays locked and a LOCK now charges nobody again.
    assert rig.table.state == "locked" and rig.lit(rig.jackpot_lights) == []
    del store.room_problem
    rig.press_lock()
    assert rig.table.state == "locked" and len(rig.events("locked")) == 1
    rig.chip(1, False)
    rig.chip(2, False)
    rig.run(300)
    assert rig.table.state == "betting"
    rig.chip(3)
    rig.press_lock()
    assert [e["ev"] for e in rig.events()][-3:] == ["reset", "locked", "contribution"]
    assert [e["seat"] for e in rig.events("contribution")] == [1, 2, 3]


def _snapshot(root):
    found = {}
    for name in os.listdir(root):
        path = root + "/" + name
        if os.stat(path)[0] & 0x4000:
            for inner in os.listdir(path):
                found[name + "/" + inner] = _read(path + "/" + inner)
        else:
            found[name] = _read(path)
    return found


def _read(path):
    with open(path, "rb") as f:
        return f.read()
