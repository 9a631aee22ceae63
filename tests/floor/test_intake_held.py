# An unsigned record of a table whose key file holds a key is stored only
# once its board's own signature covers it: a later record signed with the
# table's key whose chain of prev hashes reaches it (docs/floor-design.md,
# "Unsigned records of a keyed table"). On a floor that meets the table for
# the first time, a record 1 made up by the table's account before the
# board's own is then never stored, and refused under a `forged` alert
# naming the account once the board's chain shows it is not the board's;
# the board's own records all join. A board with no key, and a table met
# past its record 1 with no key to say where its log starts, are shown on
# the tile under a `held` alert. On SQLite and PostgreSQL, as every intake test.
import json

import pytest
from board_standin import head_answer
from chains import CASINO, forged_next, keyed, message, records, signed, topic

from mystery import chain, recordkey
from uthctl.analysis import record_auth
from uthctl.floor.intake import ACCEPTED, EARLY, KEPT, REFUSED, Intake
from uthctl.floor.page.data import tiles
from uthctl.floor.table_keys import TableKeys


@pytest.fixture
def intake(store, keys):
    return Intake(store, CASINO, keys=TableKeys(keys))


def take_all(intake, made, table="3"):
    return [intake.take(topic(table), message(table, r)) for r in made]


def made_up_record_1():
    # What the table's account can make with no key: a $5,000 validation as
    # record 1, its prev the genesis hash and its own hash right.
    return forged_next({"seq": 0, "hash": chain.GENESIS}, cycle=1)


def keyed_later(key_file, unsigned=2, after=2, table="3"):
    # A board configured before it was keyed: `unsigned` records, its `key`
    # record (was: null, signed with the key it gives), then `after` signed.
    kid, key_hex = record_auth.newest_key(key_file, table)
    first = records(unsigned)
    key = chain.link({"ev": "key", "key_id": kid, "was": None}, unsigned + 1,
                     first[-1]["hash"])
    key["auth"] = recordkey.record_auth(recordkey.parse_key(key_hex), kid, key["hash"])
    rest = signed(records(after, start_prev=key["hash"], first_seq=unsigned + 2), key_file,
                  table)
    return first + [key] + rest


def forged_alerts(store, table="3"):
    return [a for a in store.alerts(table) if a["kind"] == "forged"]


def test_a_made_up_unsigned_record_1_never_joins_and_the_boards_own_all_do(
        intake, store, keys):
    # The attack: a floor new to the table; its account publishes a made-up
    # unsigned record 1 before the board's own (signed from record 1).
    genuine = signed(records(4), keyed(keys), "3")
    made_up = made_up_record_1()
    assert intake.take(topic("3"), message("3", made_up)) == EARLY  # held, not stored
    assert store.count("records") == 0
    assert take_all(intake, genuine) == [ACCEPTED] * 4
    assert store.records("3") == genuine
    [forged] = forged_alerts(store)
    assert "client table-3 (table 3's account)" in forged["text"]
    assert "record 1 on table 3" in forged["text"]
    assert any("forged" in r["reason"] for r in store.refusals())
    # Sent again, it is refused at once.
    assert intake.take(topic("3"), message("3", made_up)) == REFUSED
    assert store.records("3") == genuine


def test_a_board_keyed_after_its_first_records_has_them_stored_once_its_key_record_covers_them(
        intake, store, keys):
    board = keyed_later(keyed(keys))
    assert intake.take(topic("3"), message("3", made_up_record_1())) == EARLY
    # Records 1-2 carry no authenticator: held. The key record 3, signed,
    # vouches for them by its prev hash; the floor asks for them again.
    assert take_all(intake, board[:3]) == [EARLY] * 3
    assert store.count("records") == 0
    assert intake.requests[-1] == ("3", {"cmd": "log", "since": 1})
    [forged] = forged_alerts(store)
    assert "record 1 on table 3" in forged["text"]
    assert take_all(intake, board) == [ACCEPTED] * len(board)
    assert store.records("3") == board
    assert store.table("3")["key_id"] == record_auth.newest_key(keys / "3.json", "3")[0]
    assert [t["unsigned"] for t in tiles(store)] == [False]
    # A made-up record past the board's chain, or at a seq it holds, never joins.
    assert intake.take(topic("3"), message("3", made_up_record_1())) == REFUSED
    assert intake.take(topic("3"), message("3", forged_next(board[-1]))) == REFUSED
    assert store.records("3") == board


def test_a_made_up_record_at_a_seq_the_boards_signature_covers_is_forged(intake, store, keys):
    # The board's key record has vouched for records 1-2, which the floor
    # asked for again; a made-up record 2 then comes first.
    board = keyed_later(keyed(keys))
    take_all(intake, board[:3])
    other = forged_next(board[0])
    assert intake.take(topic("3"), message("3", board[0])) == ACCEPTED
    assert intake.take(topic("3"), message("3", other)) == REFUSED
    assert "its board's signed chain" in store.refusals()[-1]["reason"]
    # Records 1-2 are said to carry no authenticator (`unsigned`); the made-up one is forged.
    assert sorted(a["kind"] for a in store.alerts("3")) == ["forged", "unsigned"]
    assert take_all(intake, board[1:]) == [ACCEPTED] * (len(board) - 1)


def test_records_no_key_signs_stay_held_and_a_chain_of_made_up_ones_proves_nothing(
        intake, store, keys):
    keyed(keys)
    made_up = records(5, tag="made up")
    assert take_all(intake, made_up) == [EARLY] * 5
    assert store.count("records") == 0 and store.refusals() == []


def head_request(intake, table="3"):
    return [r for name, r in intake.requests if name == table and r["cmd"] == "head"][-1]


def unsigned_head(made, nonce, table="3"):
    # A board with no record key answers `head` with no key id and no auth.
    answer = {"ok": True, "reply": "head", "seq": made[-1]["seq"], "hash": made[-1]["hash"],
              "dropped": made[0]["seq"] - 1, "nonce": nonce}
    return json.dumps({"table": table, "head": answer, "asked": nonce}).encode()


def test_a_board_with_no_key_whose_table_has_a_key_file_is_held_under_an_alert(
        intake, store, keys):
    key_file = keyed(keys)
    made = records(3)
    intake.take(topic("3", "status"), json.dumps({"table": "3", "status": "online"}).encode())
    assert take_all(intake, made) == [EARLY] * 3
    nonce = head_request(intake)["nonce"]
    assert intake.take(topic("3"), unsigned_head(made, nonce)) == KEPT
    [held] = [a for a in store.alerts("3") if a["kind"] == "held"]
    assert "no authenticator" in held["text"] and "uthctl provision" in held["text"]
    assert store.count("records") == 0
    [tile] = tiles(store)  # the page shows it on the table's tile
    assert not tile["records"] and "held" in [a["kind"] for a in tile["alerts"]]
    # Provisioned: its key record vouches for the three, and all join.
    board = keyed_later(key_file, unsigned=3, after=1)
    assert board[:3] == made
    take_all(intake, board)
    assert take_all(intake, board) == [ACCEPTED] * len(board)
    # The board's own answer to the same nonce still counts as its word.
    signed_answer = head_answer(record_auth.newest_key(key_file, "3")[1], board, nonce)
    assert intake.take(topic("3"), json.dumps({"table": "3", "head": signed_answer}).encode()
                       ) == KEPT


@pytest.mark.parametrize("dropped", [0, 299])
def test_a_table_with_no_key_met_past_record_1_is_shown_held_when_its_board_dropped_record_1(
        intake, store, dropped):
    # No key file: nothing can sign where its log starts. Its board's
    # unsigned answer is no start, but says whether record 1 will come.
    made = records(3, first_seq=dropped + 1, start_prev="ab" * 32)
    assert take_all(intake, made[1:], table="4") == [EARLY] * 2
    nonce = head_request(intake, "4")["nonce"]
    intake.take(topic("4"), unsigned_head(made, nonce, "4"))
    held = [a for a in store.alerts("4") if a["kind"] == "held"]
    assert store.count("records") == 0
    if dropped:
        assert len(held) == 1 and "record 300" in held[0]["text"]
        assert "uthctl floor add-table" in held[0]["text"]
    else:
        assert held == []  # its record 1 will come: nothing to show


def test_held_records_are_bounded_and_a_flood_of_made_up_ones_only_delays_the_boards(
        intake, store, keys, monkeypatch):
    # The account fills the table's held links: they are dropped and the
    # table asked again; the board's records, sent again, still all join.
    monkeypatch.setattr("uthctl.floor.held.MAX_HELD", 4)
    board = keyed_later(keyed(keys), unsigned=3, after=1)
    flood = [forged_next({"seq": 0, "hash": chain.GENESIS}, seat=seat) for seat in range(1, 6)]
    assert take_all(intake, flood[:4]) == [EARLY] * 4
    assert intake.take(topic("3"), message("3", flood[4])) == EARLY
    assert intake.requests[-1] == ("3", {"cmd": "log", "since": 1})
    assert store.count("records") == 0 and store.refusals() == []
    take_all(intake, board)
    assert take_all(intake, board) == [ACCEPTED] * len(board)
    assert store.records("3") == board
