# The floor's signed clock set (docs/host-link.md, "The clock";
# mystery/clock_signed.py): {"cmd": "clock", "set": [...], "auth"}
# from any host, no key switch, taken only while the board's clock is unset,
# by a board with a record key, when "auth" is the HMAC of the record key
# over this power-up's `start` record and the time. Anything else is refused
# and changes nothing: a wrong key, an altered time, a command made for an
# earlier start (replayed after a restart), a clock already set, a board
# with no key. The HMAC is worked here by hand (hmac_by_hand.py).
import binascii
import sys

import hmac_by_hand
import tmpdir
from table.board_clock import BoardClock
from table_rig import Rig
from test_hostlink_clock import ModelRtc, _localtime
from test_program_check import RELEASE_1, _program
from test_significant_events import SET_TIME, UNSET_TIME, _board_time

KEY = "00112233445566778899aabbccddeeff" * 2
OTHER_KEY = "ffeeddccbbaa99887766554433221100" * 2
WHEN = [2026, 12, 5, 14, 29, 0]  # SET_TIME as a date and time


def _power_up(root):
    # The board started with its RTC unset, as a Pico's at every power-up.
    ModelRtc.kept = (2021, 1, 1, 4, 0, 0, 0, 0)
    rig = Rig(root, program=_program(RELEASE_1), board_time=_board_time)
    rig.link.clock = BoardClock(ModelRtc, _localtime)
    return rig


def _keyed(root, key=KEY):
    # A configured board given its key (key None: none), then powered up again.
    rig = _power_up(root)
    rig.configure("A1")
    if key is not None:
        rig.enter_service()
        assert rig.command(cmd="provision", key=key)[-1]["ok"]
        rig.leave_service()
    return _power_up(root)


def _log(rig, since=0):
    return list(rig.table.bonus.log_since(since))


def _start(rig):
    # This power-up's start record, as the floor stores it.
    return [r for r in _log(rig) if r["ev"] == "start"][-1]


def _signed_set(start, when=WHEN, key=KEY):
    auth = hmac_by_hand.clock_auth(binascii.unhexlify(key), start["seq"], start["hash"], when)
    return {"cmd": "clock", "set": when, "auth": auth}


def _refused(rig, command, words):
    head = rig.table.bonus.store.head_seq
    reply = rig.command(**command)[-1]
    assert reply["ok"] is False and words in reply["error"], reply
    assert ModelRtc.kept[:3] == (2021, 1, 1), ModelRtc.kept  # the clock untouched
    assert rig.table.bonus.store.head_seq == head  # no record
    return reply


@tmpdir.within
def test_the_floors_signed_set_sets_an_unset_clock_without_the_key_switch(root):
    rig = _keyed(root)
    start = _start(rig)
    assert (start["time"], start["clock"]) == (UNSET_TIME, "unset")
    assert rig.table.state == "betting"  # no key switch held
    reply = rig.command(**_signed_set(start))[-1]
    assert reply["ok"], reply
    assert (reply["was"], reply["datetime"], reply["clock"]) == (
        [2021, 1, 1, 0, 0, 0], WHEN, "set")
    assert ModelRtc.kept == (2026, 12, 5, 5, 14, 29, 0, 0)  # 2026-12-05 is a Saturday
    [clock] = _log(rig, start["seq"] + 1)
    # Logged with was and new, by the floor, signed with the board's key.
    assert (clock["ev"], clock["was"], clock["new"], clock["by"]) == (
        "clock", [2021, 1, 1, 0, 0, 0], WHEN, "floor")
    assert clock["time"] == SET_TIME and "clock" not in clock
    assert clock["auth"] == hmac_by_hand.record_auth(binascii.unhexlify(KEY), clock)
    assert rig.events("clock")[-1] == clock
    # Its check let go once answered: a board's heap does not keep it.
    assert "mystery.clock_signed" not in sys.modules


@tmpdir.within
def test_outside_service_mode_a_set_needs_the_floors_authenticator(root):
    rig = _keyed(root)
    _refused(rig, {"cmd": "clock", "set": WHEN}, "service mode")


@tmpdir.within
def test_a_wrong_authenticator_is_refused_and_changes_nothing(root):
    rig = _keyed(root)
    start = _start(rig)
    other_key = _signed_set(start, key=OTHER_KEY)
    altered_time = _signed_set(start)
    altered_time["set"] = [2026, 12, 5, 14, 30, 0]  # signed for 14:29
    other_record = _signed_set(dict(start, hash=start["prev"]))
    for forged in (other_key, altered_time, other_record, dict(other_key, auth="0" * 64),
                   dict(other_key, auth=7)):
        _refused(rig, forged, "does not verify with record key")


@tmpdir.within
def test_a_set_made_for_an_earlier_start_is_refused_after_a_restart(root):
    first = _keyed(root)
    captured = _signed_set(_start(first))  # sent, or seen on the wire, at that start
    again = _power_up(root)
    assert _start(again)["seq"] > _start(first)["seq"]
    _refused(again, captured, "does not verify")
    assert again.command(**_signed_set(_start(again)))[-1]["ok"]


@tmpdir.within
def test_a_clock_already_set_takes_no_signed_set(root):
    rig = _keyed(root)
    command = _signed_set(_start(rig))
    assert rig.command(**command)[-1]["ok"]
    head = rig.table.bonus.store.head_seq
    for again in (command, _signed_set(_start(rig), [2027, 1, 1, 0, 0, 0])):
        reply = rig.command(**again)[-1]
        assert reply["ok"] is False and "set already" in reply["error"], reply
    assert ModelRtc.kept[0] == 2026 and rig.table.bonus.store.head_seq == head


@tmpdir.within
def test_a_board_without_a_record_key_refuses_a_signed_set(root):
    rig = _keyed(root, key=None)
    start = _start(rig)
    assert "auth" not in start
    _refused(rig, _signed_set(start), "no record key")


@tmpdir.within
def test_the_key_held_set_is_as_before_and_says_so(root):
    rig = _keyed(root)
    head = rig.table.bonus.store.head_seq
    rig.enter_service()
    assert rig.command(cmd="clock", set=WHEN)[-1]["ok"]
    rig.leave_service()
    [clock] = [r for r in _log(rig, head + 1) if r["ev"] == "clock"]
    assert (clock["was"], clock["new"], clock["by"]) == ([2021, 1, 1, 0, 0, 0], WHEN, "key")
