# The floor's confirmation that it stored a table's log (floor/collected.py,
# docs/floor.md, "Collected"): once a batch has committed, every 32 records
# and at once for the board's log_warning, a `collected` request for the
# record just stored, authenticated with the table's record key over
# (key id, seq, that record's hash), here worked with CPython's hmac rather
# than the firmware's; none for what the floor did not store or no key
# signed; the board's log_warning a `log` alert. The bridge passes on only
# an authenticated confirmation. On SQLite and PostgreSQL.
import hashlib
import hmac
import json
import logging

import pytest
from board_standin import StandInBoard
from chains import CASINO, forged_next, keyed, message, records, signed, topic

from mystery import chain
from uthctl.analysis import record_auth
from uthctl.bridge.table_bridge import Bridge
from uthctl.floor.intake import ACCEPTED, REFUSED, Intake
from uthctl.floor.intake_batch import take_batch
from uthctl.floor.table_keys import TableKeys
from uthctl.links.board_link import Link


@pytest.fixture
def intake(store, keys):
    return Intake(store, CASINO, keys=TableKeys(keys))


def _by_hand(key_file, table, seq, record_hash):
    kid, key = record_auth.newest_key(key_file, table)
    text = "collected:%s:%d:%s" % (kid, seq, record_hash)
    return hmac.new(bytes.fromhex(key), text.encode(), hashlib.sha256).hexdigest()


def _confirmations(intake):
    return [(table, request) for table, request in intake.requests
            if request["cmd"] == "collected"]


def test_stored_records_are_confirmed_with_the_tables_key(intake, keys):
    key_file = keyed(keys)
    made = signed(records(70), key_file, "3")
    assert take_batch(intake, [(topic("3"), message("3", r)) for r in made]) == [ACCEPTED] * 70
    sent = _confirmations(intake)
    assert [request["seq"] for _, request in sent] == [32, 64]
    for table, request in sent:
        record = made[request["seq"] - 1]
        assert table == "3"
        assert request["auth"] == _by_hand(key_file, "3", record["seq"], record["hash"])


def test_a_forged_record_is_never_confirmed(intake, store, keys):
    key_file = keyed(keys)
    made = signed(records(31), key_file, "3")
    for record in made:
        assert intake.take(topic("3"), message("3", record)) == ACCEPTED
    forged = forged_next(made[-1], cycle=1)
    forged["auth"] = made[-1]["auth"][:17] + "0" * 64
    assert intake.take(topic("3"), message("3", forged)) == REFUSED
    assert _confirmations(intake) == []
    assert store.table("3")["last_seq"] == 31


def test_an_unsigned_table_is_never_confirmed_by_the_floor(intake):
    made = records(70)
    for record in made:
        assert intake.take(topic("3"), message("3", record)) == ACCEPTED
    assert _confirmations(intake) == []


def _warning(seq, prev):
    return chain.link({"ev": "log_warning", "uncollected": 413, "capacity": 551}, seq, prev)


def test_the_boards_log_warning_is_an_alert_and_confirmed_at_once(intake, store, keys):
    key_file = keyed(keys)
    made = records(5)
    made.append(_warning(6, made[-1]["hash"]))
    made = signed(made, key_file, "3")
    for record in made:
        assert intake.take(topic("3"), message("3", record)) == ACCEPTED
    [(_, request)] = _confirmations(intake)
    assert request["seq"] == 6
    assert request["auth"] == _by_hand(key_file, "3", 6, made[-1]["hash"])
    [alert] = [a for a in store.alerts("3") if a["kind"] == "log"]
    assert "413 of the 551" in alert["text"] and "--collected" in alert["text"]


def test_a_rolled_back_batch_takes_its_confirmation_back(intake, store, keys, monkeypatch):
    # Record 32's confirmation is made in the batch; record 33 then fails
    # once, the batch rolls back and is taken again one at a time: record
    # 32 is confirmed once, by the message that committed it.
    key_file = keyed(keys)
    made = signed(records(33), key_file, "3")
    messages = [(topic("3"), message("3", r)) for r in made]
    real = store.append
    calls = []

    def fails_once_at_the_last(*args, **kwargs):
        calls.append(1)
        if len(calls) == 33:
            raise OSError("the database went away")
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "append", fails_once_at_the_last)
    assert take_batch(intake, messages) == [ACCEPTED] * 33
    assert len(calls) == 66  # the batch's 33, then each again
    assert store.table("3")["last_seq"] == 33
    assert [request["seq"] for _, request in _confirmations(intake)] == [32]


def _bridge(tmp_path):
    return Bridge("unused", "mqtt://127.0.0.1:1883", ("table-3", "p"), "riverside", "3",
                  tmp_path / "bridge-3.json")


def test_the_bridge_passes_on_only_an_authenticated_confirmation(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="uthctl")
    bridge = _bridge(tmp_path)
    board = StandInBoard([], {"log_seq": 0})
    bridge.link = Link(board.path, timeout=2.0)
    try:
        bridge.answer(json.dumps({"cmd": "collected", "seq": 5}))
        bridge.answer(json.dumps({"cmd": "collected", "seq": 5, "auth": "ab" * 32}))
        bridge.link.command("ping")
    finally:
        bridge.link.close()
        board.close()
    assert "refused a collected request without an authenticator" in caplog.text
    assert [request["cmd"] for request in board.asked] == ["collected", "ping"]
    assert board.asked[0]["auth"] == "ab" * 32 and board.asked[0]["seq"] == 5
    # The stand-in refuses it, as a board refuses a confirmation it cannot verify.
    assert "the board refused the floor's confirmation of record 5" in caplog.text
