# `uthctl floor audit` on where a table's log starts and what a stripped log
# is (issue 37, points 5 and 7): a log whose authenticators were taken off
# fails once it holds the board's `key` record, with or without the board's
# live head; and against the live head, a database whose log starts after
# the board's oldest kept record fails, whatever the meters' log_dropped
# (the table's host's word) says. On SQLite and PostgreSQL.
import pytest
from audit_floor import (
    TABLE,
    bridged_board,
    fill,
    key_file,
    mosquitto,
    played,
    replace_records,
    run_audit,
)
from board_standin import relinked, sign

from mystery import chain, recordkey

HEAD_WAIT = ("--wait", "10")


def keyed_play(floor_dir, rounds):
    # (key hex, records, meters): the firmware engine's log behind the
    # board's `key` record, record 1 (a board keyed before its first
    # configuration), every record signed with the key as the board signs.
    key = key_file(floor_dir)
    made, meters = played(rounds)
    kid = recordkey.key_id(recordkey.parse_key(key))
    log = [chain.link({"ev": "key", "key_id": kid, "was": None}, 1, chain.GENESIS)]
    for record in made:
        body = {k: v for k, v in record.items() if k not in ("seq", "prev", "hash")}
        log.append(chain.link(body, record["seq"] + 1, log[-1]["hash"]))
    log = sign(log, key)
    return key, log, dict(meters, log_seq=log[-1]["seq"], log_hash=log[-1]["hash"])


def stripped(records):
    return [{k: v for k, v in r.items() if k != "auth"} for r in records]


def at_head(meters, records):
    return dict(meters, log_seq=records[-1]["seq"], log_hash=records[-1]["hash"])


def test_a_rewrite_with_every_authenticator_taken_off_fails(capsys, floor_dir, store, db_url):
    # The attack: the validating employee rewritten, the later hashes
    # recomputed, every `auth` removed; the board's key record still there.
    _, records, meters = keyed_play(floor_dir, 820)
    fill(store, records, meters)
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert report["tables"][TABLE]["failures"] == [] and code == 3  # untouched: head unasked
    index = next(i for i, r in enumerate(records) if r["ev"] == "validated")
    rewritten = stripped(relinked(records, index, employee="0042"))
    replace_records(store, rewritten, at_head(meters, rewritten))
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert code == 1 and report["verdict"] == "FAILED"
    failures = " ".join(report["tables"][TABLE]["failures"])
    assert "record 1, the board's key record" in failures and "carries no authenticator" \
        in failures
    assert "record 2 carries no authenticator" in failures


def test_a_stripped_log_fails_without_its_key_file_too(capsys, floor_dir, store, db_url):
    _, records, meters = keyed_play(floor_dir, 40)
    (floor_dir.folder / "keys" / ("%s.json" % TABLE)).unlink()
    fill(store, stripped(records), meters)
    code, report, _ = run_audit(capsys, floor_dir, db_url)
    assert code == 1 and report["verdict"] == "FAILED"
    assert "carry no authenticator though the log holds the board's key record 1" in " ".join(
        report["tables"][TABLE]["failures"])


@pytest.fixture
def live(floor_dir, tmp_path, need_mosquitto):
    floor_dir.add_table(TABLE)
    with mosquitto(floor_dir, tmp_path) as broker:
        yield broker


def test_a_stripped_log_fails_with_the_boards_live_head_confirming_it(
        capsys, floor_dir, store, db_url, live, tmp_path):
    # Nothing rewritten: the hashes are the board's, so its head matches.
    key, records, meters = keyed_play(floor_dir, 40)
    fill(store, stripped(records), meters)
    with bridged_board(floor_dir, live, tmp_path, records, meters, key):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    *HEAD_WAIT)
    assert report["tables"][TABLE]["head"]["state"] == "confirmed"
    assert code == 1 and report["verdict"] == "FAILED"


def test_a_log_starting_after_the_boards_oldest_kept_record_fails_against_its_head(
        capsys, floor_dir, store, db_url, live, tmp_path):
    # The board keeps records 200 on; the database holds them from 300, the
    # meters' log_dropped (its host's word) set to 299 to match.
    key, records, meters = keyed_play(floor_dir, 400)
    board = records[199:]
    fill(store, records[299:], dict(meters, log_dropped=299))
    with bridged_board(floor_dir, live, tmp_path, board, meters, key):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    *HEAD_WAIT)
    assert code == 1 and report["verdict"] == "FAILED", report["summary"]
    head = report["tables"][TABLE]["head"]
    assert head["state"] == "failed"
    assert "starts at record 300, but the board keeps its records from record 200" \
        in head["text"]
    assert "records 200-299 are missing" in head["text"]


def test_a_log_starting_at_the_boards_oldest_kept_record_is_verified(
        capsys, floor_dir, store, db_url, live, tmp_path):
    key, records, meters = keyed_play(floor_dir, 400)
    fill(store, records[299:], meters)
    with bridged_board(floor_dir, live, tmp_path, records[299:], meters, key):
        code, report, _ = run_audit(capsys, floor_dir, db_url, "--broker", live.url,
                                    *HEAD_WAIT)
    assert report["tables"][TABLE]["head"]["state"] == "confirmed"
    assert code == 0 and report["verdict"] == "verified", report["tables"][TABLE]["failures"]
