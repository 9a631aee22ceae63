# `uthctl floor audit` anchored outside the database (issue 25, points 1 and
# 5): a rewrite with every later hash recomputed fails on the table's key
# file; a deleted tail, the meters rolled back with it, fails against the
# board's own head, asked live through its bridge; an empty, missing or
# foreign database is an error and 0 tables a failure, never a pass; a board
# that does not answer leaves its table `head unconfirmed`.
import json
import time
from pathlib import Path

import pytest
from audit_floor import (
    TABLE,
    bridged_board,
    fill,
    mosquitto,
    played,
    replace_records,
    run_audit,
    signed_play,
)
from board_standin import StandInBoard, relinked, sign
from chains import CASINO
from sqlalchemy import create_engine, inspect, update
from sqlalchemy.engine import make_url

from mystery import chain
from uthctl.cli import main as uthctl
from uthctl.floor import schema

HEAD_WAIT = ("--wait", "10")


def first(records, ev):
    return next(index for index, r in enumerate(records) if r["ev"] == ev)


# ---- a rewrite the hashes cannot show ----

def test_the_validating_employee_rewritten_with_every_later_hash_recomputed_fails(
        capsys, floor_dir, store, db_url):
    _, records, meters = signed_play(floor_dir, 820)  # the first hit is validated at 808
    fill(store, records, meters)
    _, untouched, _ = run_audit(capsys, floor_dir, db_url)
    assert untouched["tables"][TABLE]["failures"] == []  # as the board made it: nothing wrong
    index = first(records, "validated")
    rewritten = relinked(records, index, employee="0042")
    assert chain.verify(rewritten, first_prev=chain.GENESIS)[0]  # the hashes cannot tell
    replace_records(store, rewritten, dict(meters, log_hash=rewritten[-1]["hash"]))
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert code == 1 and report["verdict"] == "FAILED"
    failures = " ".join(report["tables"][TABLE]["failures"])
    assert "record %d's authenticator does not match its key" % records[index]["seq"] \
        in failures
    assert untouched["tables"][TABLE]["signatures"]["signed"] == len(records)


def test_without_a_key_file_a_table_is_unsigned_and_never_verified(
        capsys, floor_dir, store, db_url):
    records, meters = played(120)
    fill(store, records, meters)
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert code == 3 and report["verdict"] == "unconfirmed" and not report["ok"]
    table = report["tables"][TABLE]
    assert table["failures"] == []
    assert (table["signatures"]["state"], table["head"]["state"]) == (
        "unsigned", "head unconfirmed")


# ---- the database's own existence ----

def test_a_folder_whose_database_is_missing_is_an_error_and_makes_none(
        capsys, floor_dir):
    code, report, _ = run_audit(capsys, floor_dir, None)
    assert code == 2
    assert report["error"] == "no floor database at %s (no such file)" % (
        floor_dir.folder.resolve() / "floor.db")
    assert not (floor_dir.folder / "floor.db").exists()


def test_a_postgresql_database_that_is_not_there_is_an_error(capsys, floor_dir, postgres):
    missing = postgres.url.replace("/postgres?", "/no_such_floor?")
    code, report, _ = run_audit(capsys, floor_dir, missing)
    assert code == 2
    assert report["error"].startswith("cannot read the database %s: " % missing)
    assert 'database "no_such_floor" does not exist' in report["error"]


def test_a_folder_that_is_no_floors_is_an_error(capsys, tmp_path, db_url):
    capsys.readouterr()
    code = uthctl(["floor", "--dir", str(tmp_path / "nothing"), "--db", db_url, "audit"])
    assert code == 2
    assert "is no floor folder" in capsys.readouterr().err


def test_a_database_without_the_floors_tables_is_an_error_and_gets_none(
        capsys, floor_dir, db_url):
    if db_url.startswith("sqlite"):  # an empty SQLite file; PostgreSQL's starts with none
        Path(make_url(db_url).database).write_bytes(b"")
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert code == 2 and report["error"] == (
        "%s is not the floor's database (it has no alerts, notices, records, refusals, "
        "tables table)" % db_url)
    engine = create_engine(db_url)
    assert inspect(engine).get_table_names() == []
    engine.dispose()


def test_a_database_of_no_tables_fails(capsys, floor_dir, store, db_url):
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert code == 1 and report["verdict"] == "FAILED" and report["tables"] == {}
    capsys.readouterr()
    uthctl(["floor", "--dir", str(floor_dir.folder), "--db", db_url, "audit"])
    assert capsys.readouterr().out.splitlines()[:2] == [
        "Floor audit, 0 tables: FAILED", "  the database holds no table: nothing was audited"]


def test_a_table_whose_records_cannot_be_read_fails(capsys, floor_dir, store, db_url):
    fill(store, *played(20))
    with store.engine.begin() as db:
        db.execute(update(schema.records).where(schema.records.c.table_id == TABLE,
                                                schema.records.c.seq == 5).values(
            body="{not JSON"))
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert code == 1 and report["verdict"] == "FAILED"
    assert report["tables"][TABLE]["failures"][0].startswith(
        "records: the database's records cannot be read")


def test_the_database_init_recorded_is_the_one_audited(capsys, tmp_path, store, db_url):
    folder = tmp_path / "recorded"
    assert uthctl(["floor", "--dir", str(folder), "--db", db_url, "init", "--casino",
                   CASINO]) == 0
    assert json.loads((folder / "floor.json").read_text())["db"] == db_url
    fill(store, *played(20))
    capsys.readouterr()
    code = uthctl(["floor", "--dir", str(folder), "audit", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 3 and list(report["tables"]) == [TABLE]
    assert not (folder / "floor.db").exists()


# ---- the board's own head, live ----

@pytest.fixture
def live(floor_dir, tmp_path, need_mosquitto):
    floor_dir.add_table(TABLE)
    with mosquitto(floor_dir, tmp_path) as broker:
        yield broker


def test_a_deleted_tail_with_the_meters_rolled_back_fails_against_the_boards_head(
        capsys, floor_dir, store, db_url, live, tmp_path):
    key, records, meters = signed_play(floor_dir, 120)
    kept, kept_meters = played(70)
    assert [r["hash"] for r in records[:len(kept)]] == [r["hash"] for r in kept]
    fill(store, records, meters)
    with bridged_board(floor_dir, live, tmp_path, records, meters, key):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    *HEAD_WAIT)
        assert code == 0 and report["verdict"] == "verified", report["summary"]
        assert report["tables"][TABLE]["head"]["state"] == "confirmed"
        # The last 50 rounds deleted, the meters snapshot of record 72 put back.
        replace_records(store, records[:len(kept)], kept_meters)
        code, report, _ = run_audit(capsys, floor_dir, db_url)
        assert report["tables"][TABLE]["failures"] == []  # the database alone says nothing
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    *HEAD_WAIT)
    assert code == 1 and report["verdict"] == "FAILED"
    head = report["tables"][TABLE]["head"]
    assert head["state"] == "failed"
    assert "the database lacks records %d-%d" % (len(kept) + 1, len(records)) in head["text"]


def test_a_table_deleted_whole_fails_against_its_board(
        capsys, floor_dir, store, db_url, live, tmp_path):
    # Table 3 has an account; the database holds only another table's records.
    key, records, meters = signed_play(floor_dir, 20)
    fill(store, *played(20), table="9")
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert code == 3 and sorted(report["tables"]) == [TABLE, "9"]
    assert report["tables"][TABLE]["head"]["text"].startswith(
        "the database holds nothing of table 3, which has an account")
    with bridged_board(floor_dir, live, tmp_path, records, meters, key):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    *HEAD_WAIT)
    assert code == 1 and report["tables"][TABLE]["verdict"] == "FAILED"
    assert report["tables"][TABLE]["head"]["text"].startswith(
        "the database lacks records 1-%d, which the board holds" % len(records))


def test_a_database_behind_by_records_made_just_now_is_a_warning(
        capsys, floor_dir, store, db_url, live, tmp_path):
    key, records, meters = signed_play(floor_dir, 20)
    now = int(time.time())
    fresh = [chain.link({"ev": "setting", "name": "wager_cents", "was": None, "value": 500,
                         "time": now}, len(records) + 1, records[-1]["hash"])]
    board_records = records + sign(fresh, key)
    fill(store, records, meters)
    board_meters = dict(meters, log_seq=fresh[0]["seq"], log_hash=fresh[0]["hash"])
    with bridged_board(floor_dir, live, tmp_path, board_records, board_meters, key):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    *HEAD_WAIT)
    head = report["tables"][TABLE]["head"]
    assert head["state"] == "behind" and head["text"].startswith("behind by 1")
    assert code == 0


def test_a_board_that_does_not_answer_leaves_its_table_head_unconfirmed(
        capsys, floor_dir, store, db_url, live):
    key, records, meters = signed_play(floor_dir, 20)
    fill(store, records, meters)
    code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                "--wait", "1")
    assert code == 3 and report["verdict"] == "unconfirmed"
    head = report["tables"][TABLE]["head"]
    assert head["state"] == "head unconfirmed" and "no answer" in head["text"]


def test_a_head_answer_made_with_another_key_is_not_the_boards(
        capsys, floor_dir, store, db_url, live, tmp_path):
    key, records, meters = signed_play(floor_dir, 20)
    fill(store, records, meters)
    other = "ab" * 32
    with bridged_board(floor_dir, live, tmp_path, records, meters, other):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    "--wait", "3")
    assert code == 3
    head = report["tables"][TABLE]["head"]
    assert head["state"] == "head unconfirmed" and "does not hold" in head["text"]


def test_a_board_that_refuses_head_leaves_its_table_head_unconfirmed_saying_so(
        capsys, floor_dir, store, db_url, live, tmp_path):
    # A board whose firmware predates `head` answers it as any unknown command.
    key, records, meters = signed_play(floor_dir, 20)
    fill(store, records, meters)
    with bridged_board(floor_dir, live, tmp_path, records, meters, None):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    "--wait", "3")
    assert code == 3
    head = report["tables"][TABLE]["head"]
    assert head == {"state": "head unconfirmed",
                    "text": "the board refused `head`: unknown command"}


def test_an_old_head_answer_shown_again_is_not_taken(
        capsys, floor_dir, store, db_url, live, tmp_path):
    # The board's genuine answer to an earlier audit, for that audit's nonce.
    key, records, meters = signed_play(floor_dir, 20)
    fill(store, records, meters)
    with bridged_board(floor_dir, live, tmp_path, records, meters, key,
                       replay_nonce="5a" * 16):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    "--wait", "3")
    assert code == 3
    assert report["tables"][TABLE]["head"]["state"] == "head unconfirmed"


# ---- the board's own export, record by record ----

def test_the_boards_export_finds_a_changed_record(capsys, floor_dir, store, db_url):
    records, meters = played(60)
    index = 30
    changed = relinked(records, index, seats=[[1, 2500, 500]])
    fill(store, changed, dict(meters, log_hash=changed[-1]["hash"]))
    board = StandInBoard(records, meters)
    try:
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--table", TABLE,
                                    "--port", board.path)
    finally:
        board.close()
    assert code == 1
    head = report["tables"][TABLE]["head"]
    assert head["state"] == "failed" and head["compared"] == len(records)
    assert "record %d differs from the board's in hash, seats" % (index + 1) \
        in head["text"]
