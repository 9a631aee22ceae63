# An intake no message can stop (issue 25): each message the attacks found
# on table 3's own topics is refused with its reason, on SQLite and on
# PostgreSQL, and table 4's next honest record is still stored. Whatever
# else fails on one message refuses that message alone, counted on its
# table's tile as `internal`.
import json
import logging

import pytest
from board_standin import head_answer, sign
from chains import CASINO, message, records, topic
from sqlalchemy import Column, MetaData, Table, insert

from mystery import chain
from uthctl.analysis import record_auth
from uthctl.floor import schema
from uthctl.floor.database import FloorDatabase, engine_for
from uthctl.floor.intake import ACCEPTED, EARLY, REFUSED, Intake
from uthctl.floor.page.data import tiles
from uthctl.floor.service import Floor
from uthctl.floor.table_keys import TableKeys


@pytest.fixture
def intake(store):
    return Intake(store, CASINO)


def honest_four_still_stored(intake, store):
    made = records(1, tag="table 4")
    assert intake.take(topic("4"), message("4", made[0])) == ACCEPTED
    assert store.records("4") == made


def refused_for(intake, store, payload, words, where=None):
    assert intake.take(where or topic("3"), payload) == REFUSED
    assert words in store.refusals()[-1]["reason"]


@pytest.mark.parametrize("payload, words", [
    (b"[" * 100_000, "past the floor's 65536"),  # ended uthctl floor: RecursionError
    (b"[" * 60_000, "nested 60000 deep"),
    (b'{"table": "3", "event": ' + b'{"a": ' * 40 + b"1" + b"}" * 41, "nested 41 deep"),
])
def test_a_payload_too_big_or_too_deep_is_refused_before_parsing(intake, store, payload, words):
    refused_for(intake, store, payload, words)
    honest_four_still_stored(intake, store)


def test_brackets_inside_strings_are_not_nesting():
    from uthctl.floor import limits

    text = json.dumps({"note": "[[[[{{{{" * 100, "list": [[1]]})
    assert limits.nesting(text) == 3
    assert limits.read_message(text)["list"] == [[1]]


@pytest.mark.parametrize("payload, words", [
    (b"\x00", "not JSON"),  # PostgreSQL refused the refusal: text holds no NUL
    (b'{"table": "3", "x": "\x00"}', "not JSON"),
    (b'{"table": "3", "event": {"ev": "fa\\u0000ult"}}', "holds a NUL"),
    (b'{"table": "3", "event": {"ev": "\\ud800"}}', "lone surrogate"),
    (b'{"table": "3", "record": {"ev": "x", "seq": 4, "prev": "' + b"a" * 64 + b'", "hash": "'
     + b"b" * 64 + b'", "note": "\\udfff"}}', "lone surrogate"),
    (b'{"table": "3", "status": "online", "board": {"state": NaN}}', "NaN is no JSON"),
    (b'{"table": "3", "meters": {"log_seq": 1e999}}', "past a float's range"),
])
def test_text_and_numbers_no_database_or_page_takes_are_refused(intake, store, payload, words):
    refused_for(intake, store, payload, words)
    assert "\x00" not in store.refusals()[-1]["payload"]
    honest_four_still_stored(intake, store)


def test_a_fault_reason_with_a_nul_is_kept_with_the_nul_written_out(intake, store):
    fault = b'{"table": "3", "event": {"ev": "fault", "reason": "bus\\u0000 0x21"}}'
    intake.take(topic("3"), fault)
    assert [a["text"] for a in store.alerts("3")] == ["bus\\x00 0x21"]
    honest_four_still_stored(intake, store)


def test_a_record_whose_ev_is_past_its_column_is_refused_though_it_chains(intake, store):
    # PostgreSQL refused it as too long for varchar(32) and the floor ended.
    record = chain.link({"ev": "e" * 40}, 1, chain.GENESIS)
    refused_for(intake, store, message("3", record), "40 characters, past its column's 32")
    assert store.count("records") == 0
    honest_four_still_stored(intake, store)


def test_a_first_record_past_64_bits_is_refused_and_the_largest_seq_is_kept(
        store, tmp_path):
    # SQLite raised OverflowError on 2**63 and the floor ended. The table's
    # log starts past record 1 where its board's signed head says (issue 37).
    (tmp_path / "keys").mkdir(mode=0o700)
    key_file = tmp_path / "keys" / "3.json"
    record_auth.add_key(key_file, "3")
    intake = Intake(store, CASINO, keys=TableKeys(tmp_path / "keys"))
    key_hex = record_auth.newest_key(key_file, "3")[1]
    for seq, outcome in ((2**63, REFUSED), (2**63 - 1, EARLY)):
        record = chain.link({"ev": "setting", "name": "x", "value": 1}, seq, "a" * 64)
        [record] = sign([record], key_hex)
        assert intake.take(topic("3"), message("3", record)) == outcome
    nonce = intake.requests[-1][1]["nonce"]
    answer = head_answer(key_hex, [record], nonce)  # it keeps that record alone
    intake.take(topic("3"), json.dumps({"table": "3", "head": answer}).encode())
    assert intake.take(topic("3"), message("3", record)) == ACCEPTED
    assert "past a 64-bit integer" in store.refusals()[0]["reason"]
    assert store.table("3")["last_seq"] == 2**63 - 1
    honest_four_still_stored(intake, store)


def test_a_failure_inside_the_floor_refuses_that_message_alone(intake, store, monkeypatch):
    made = records(2)
    intake.take(topic("3"), message("3", made[0]))
    real_append = store.append

    def broken_once(*args, **kwargs):
        monkeypatch.setattr(store, "append", real_append)
        raise RuntimeError("the disk said no")

    monkeypatch.setattr(store, "append", broken_once)
    assert intake.take(topic("3"), message("3", made[1])) == REFUSED
    assert store.refusals()[0]["reason"] == "internal error: RuntimeError: the disk said no"
    assert {t["table"]: t["internal"] for t in tiles(store)} == {"3": 1}
    honest_four_still_stored(intake, store)
    assert intake.take(topic("3"), message("3", made[1])) == ACCEPTED  # resent: it joins
    assert store.records("3") == made


def test_a_refusal_the_database_cannot_store_is_said_and_the_floor_goes_on(store,
                                                                          monkeypatch):
    said = []
    intake = Intake(store, CASINO, log=said.append)

    def no_database(*args):
        raise OSError("database gone")

    monkeypatch.setattr(store, "refuse", no_database)
    assert intake.take(topic("3"), b"garbage") == REFUSED
    assert any("was not stored: OSError: database gone" in line for line in said)
    honest_four_still_stored(intake, store)


def test_the_floors_loop_takes_the_next_message_after_any_poison(store, caplog):
    caplog.set_level(logging.INFO, logger="uthctl")
    floor = Floor("mqtt://127.0.0.1:1", ("floor", "unused"), CASINO, store)
    made = records(1, tag="table 4")
    for item in ((topic("3"), b"[" * 100_000), (topic("3"), b"\x00"),
                 (topic("4"), message("4", made[0]))):
        floor.inbox.put(item)
        floor.step()
    assert store.records("4") == made
    assert len(store.refusals()) == 2 and "refused" in caplog.text


def test_a_database_made_before_the_new_columns_is_upgraded_rows_kept(db_url):
    # tables as the floor made it before record keys and internal counts.
    old = MetaData()
    Table("tables", old, *[Column(c.name, c.type, primary_key=c.primary_key,
                                  nullable=c.nullable, default=c.default)
                           for c in schema.tables.columns if c.name not in ("key_id",
                                                                             "internal")])
    engine = engine_for(db_url)
    old.create_all(engine)
    with engine.begin() as db:
        db.execute(insert(old.tables["tables"]).values(table_id="3", casino=CASINO))
    engine.dispose()
    store = FloorDatabase(db_url)
    try:
        row = store.table("3")
        assert (row["casino"], row["key_id"], row["internal"]) == (CASINO, None, 0)
        store.count_internal(CASINO, "3")
        assert store.table("3")["internal"] == 1
    finally:
        store.close()


def test_a_failure_outside_any_message_is_said_and_the_loop_goes_on(store, monkeypatch,
                                                                     caplog):
    # At a reconnection the floor asks every known table for its meters; the
    # database failing there is said, and the next message is taken.
    floor = Floor("mqtt://127.0.0.1:1", ("floor", "unused"), CASINO, store)
    real_ids = store.table_ids
    monkeypatch.setattr(store, "table_ids", lambda: 1 / 0)
    floor.inbox.put(None)
    floor.step()
    said = [(r.name, r.levelname, r.getMessage()) for r in caplog.records]
    assert ("uthctl.floor", "ERROR", "internal error on a reconnection: ZeroDivisionError: "
            "division by zero") in said
    monkeypatch.setattr(store, "table_ids", real_ids)
    made = records(1, tag="table 4")
    floor.inbox.put((topic("4"), message("4", made[0])))
    floor.step()
    assert store.records("4") == made
