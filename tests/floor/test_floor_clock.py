# The floor's clock set for a table whose board started with its clock unset
# (floor/collected.py clock_request, docs/host-link.md, "The clock"): once a
# board's signed `start` record stamped "clock": "unset" is stored, a `clock`
# request with the floor's own time (UTC) and an HMAC with the table's record
# key over the start record and that time, here worked with CPython's hmac
# rather than the firmware's. None for a start with its clock set, an
# unsigned table, a forged start or one sent again. The bridge passes on
# only an authenticated one. On SQLite and PostgreSQL.
import hashlib
import hmac
import json
import logging
import time

import pytest
from board_standin import StandInBoard
from chains import CASINO, message, records, signed, topic
from chains import keyed as key_file_for
from test_floor_collected import _bridge  # the table-3 bridge the floor's commands go through

from mystery import chain
from uthctl.analysis import record_auth
from uthctl.floor.intake import ACCEPTED, DUPLICATE, REFUSED, Intake
from uthctl.floor.table_keys import TableKeys
from uthctl.links.board_link import Link

UNSET = 18_628 * 86_400  # 2021-01-01 00:00:00 UTC: a Pico's clock at power-up


@pytest.fixture
def intake(store, keys):
    return Intake(store, CASINO, keys=TableKeys(keys))


def _with_start(count=3, clock="unset"):
    made = records(count)
    start = {"ev": "start", "program": "ab" * 32, "cause": "pwron_reset", "time": UNSET}
    if clock is not None:
        start["clock"] = clock
    made.append(chain.link(start, count + 1, made[-1]["hash"]))
    return made


def _clock_requests(intake):
    return [(table, request) for table, request in intake.requests if request["cmd"] == "clock"]


def _by_hand(key_file, table, start, when):
    kid, key = record_auth.newest_key(key_file, table)
    text = "clock:%s:%d:%s:%s" % (kid, start["seq"], start["hash"],
                                  ",".join(str(n) for n in when))
    return hmac.new(bytes.fromhex(key), text.encode(), hashlib.sha256).hexdigest()


def _take(intake, made, table="3"):
    return [intake.take(topic(table), message(table, record)) for record in made]


def test_a_start_with_its_clock_unset_is_answered_with_the_floors_clock_signed(intake, keys):
    key_file = key_file_for(keys)
    made = signed(_with_start(), key_file, "3")
    before = time.gmtime(time.time())[:6]
    assert _take(intake, made) == [ACCEPTED] * 4
    after = time.gmtime(time.time())[:6]
    [(table, request)] = _clock_requests(intake)
    assert table == "3" and set(request) == {"cmd", "set", "auth"}
    assert list(before) <= request["set"] <= list(after)  # the floor's clock, in UTC
    assert request["auth"] == _by_hand(key_file, "3", made[-1], request["set"])
    # Taken again (a bridge's resend): a duplicate, not a second set.
    assert _take(intake, made[-1:]) == [DUPLICATE]
    assert len(_clock_requests(intake)) == 1


def test_a_start_with_its_clock_set_or_unsigned_is_not_answered(intake, keys):
    key_file = key_file_for(keys)
    assert _take(intake, signed(_with_start(clock=None), key_file, "3")) == [ACCEPTED] * 4
    assert _take(intake, _with_start(), table="4") == [ACCEPTED] * 4  # no key: unsigned
    assert _clock_requests(intake) == []


def test_a_forged_start_is_refused_and_not_answered(intake, keys):
    key_file = key_file_for(keys)
    made = signed(_with_start(), key_file, "3")
    made[-1]["auth"] = made[-1]["auth"][:17] + "0" * 64
    assert _take(intake, made) == [ACCEPTED] * 3 + [REFUSED]
    assert _clock_requests(intake) == []
    # The floor goes on: the genuine start, sent next, is answered.
    genuine = signed(_with_start(), key_file, "3")
    assert _take(intake, genuine[-1:]) == [ACCEPTED]
    assert len(_clock_requests(intake)) == 1


def test_the_bridge_passes_on_only_an_authenticated_clock_set(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="uthctl")
    bridge = _bridge(tmp_path)
    board = StandInBoard([], {"log_seq": 0})
    bridge.link = Link(board.path, timeout=2.0)
    when = [2026, 12, 5, 14, 29, 0]
    try:
        bridge.answer(json.dumps({"cmd": "clock", "set": when}))
        bridge.answer(json.dumps({"cmd": "clock", "set": when, "auth": "ab" * 32}))
        bridge.link.command("ping")
    finally:
        bridge.link.close()
        board.close()
    assert "refused a clock request without an authenticator" in caplog.text
    assert [request["cmd"] for request in board.asked] == ["clock", "ping"]
    assert (board.asked[0]["set"], board.asked[0]["auth"]) == (when, "ab" * 32)
    # The stand-in refuses it, as a board refuses a set it cannot verify.
    assert "the board refused the floor's clock set" in caplog.text
