# The board's significant events kept in its signed log (table/controller.py,
# mystery/bonus.py): service mode entered and left, the clock set with what
# it read before and after, a fault of the seats; every record stamped with
# the board's time, flagged while the clock was never set. A new board's
# events go out alone: its first record is still to come.
import tmpdir
from table.board_clock import BoardClock
from table_rig import Rig
from test_hostlink_clock import ModelRtc, _localtime

# Seconds from 1970-01-01 UTC: 2021-01-01 00:00:00 (an RP2040's clock at
# power-up) and 2026-12-05 14:29:00, worked out apart from the firmware
# (18,628 and 20,427 days from 1970, plus the time of day).
UNSET_TIME = 18_628 * 86_400
SET_TIME = 20_427 * 86_400 + 14 * 3600 + 29 * 60


def _board_time():
    # The board's time.time() as its RTC model reads: unset until a set.
    return SET_TIME if ModelRtc.kept[0] >= 2026 else UNSET_TIME


def _rig(root):
    ModelRtc.kept = (2021, 1, 1, 4, 0, 0, 0, 0)
    rig = Rig(root)
    rig.link.clock = BoardClock(ModelRtc, _localtime)
    rig.table.bonus.clock = _board_time
    return rig


def _log(rig, since=0):
    return list(rig.table.bonus.log_since(since))


@tmpdir.within
def test_service_mode_entered_and_left_are_records_around_what_was_done(root):
    rig = _rig(root)
    rig.configure("A1")
    head = rig.table.bonus.store.head_seq
    rig.enter_service()
    assert rig.command(cmd="set", name="reset", value="minimum")[-1]["ok"]
    rig.leave_service()
    records = _log(rig, head + 1)
    assert [(r["ev"], r.get("entered")) for r in records] == [
        ("service", True), ("setting", None), ("service", False)]
    # The events went out as the records, seq and all.
    assert rig.events("service")[-2:] == [records[0], records[2]]


@tmpdir.within
def test_a_new_boards_service_mode_goes_out_as_an_event_alone(root):
    rig = _rig(root)
    rig.enter_service()
    assert rig.events("service") == [{"ev": "service", "entered": True}]
    assert rig.table.bonus.store.head_seq == 0  # its first record is still to come
    assert rig.command(cmd="config", mystery="A1")[-1]["ok"]
    rig.leave_service()
    assert [r["ev"] for r in _log(rig)] == ["config", "reset", "service"]


@tmpdir.within
def test_every_record_carries_the_boards_time_flagged_until_the_clock_is_set(root):
    rig = _rig(root)
    rig.configure("A1")
    rig.chip(2)
    rig.press_lock()
    unset = _log(rig)
    assert [r["ev"] for r in unset] == ["config", "reset", "service", "round"]
    for record in unset:
        assert (record["time"], record["clock"]) == (UNSET_TIME, "unset"), record

    head = rig.table.bonus.store.head_seq
    rig.run(2000)  # the round's chips are gone: betting
    rig.chip(2, False)
    rig.run(2000)
    rig.enter_service()
    reply = rig.command(cmd="clock", set=[2026, 12, 5, 14, 29, 0])[-1]
    assert reply["ok"], reply
    rig.leave_service()
    entered, clock, left = _log(rig, head + 1)
    assert (entered["ev"], entered["clock"]) == ("service", "unset")
    # The clock's record: what it read before and after, stamped with the new time.
    assert (clock["ev"], clock["was"], clock["new"]) == (
        "clock", [2021, 1, 1, 0, 0, 0], [2026, 12, 5, 14, 29, 0])
    assert clock["time"] == SET_TIME and "clock" not in clock
    assert (left["ev"], left["time"]) == ("service", SET_TIME) and "clock" not in left


@tmpdir.within
def test_the_clock_refused_out_of_service_mode_leaves_no_record(root):
    rig = _rig(root)
    rig.configure("A1")
    head = rig.table.bonus.store.head_seq
    assert rig.command(cmd="clock", set=[2026, 12, 5, 14, 29, 0])[-1]["ok"] is False
    assert rig.table.bonus.store.head_seq == head and rig.events("clock") == []
