# Records only the board can make: a table with a key file has each record
# checked against its key as it arrives (issue 25). A second client with
# the table's account can compute a chain's hashes but not the board's
# authenticator: its record is refused under a `forged` alert naming the
# account, and the board's own record with that seq still joins. On SQLite
# and PostgreSQL, as every intake test.
import json
import os

import pytest
from chains import CASINO, forged_next, keyed, message, records, signed, topic

from mystery import chain, recordkey
from uthctl.analysis import record_auth
from uthctl.floor.intake import ACCEPTED, EARLY, REFUSED, Intake
from uthctl.floor.page.data import tiles


def TableKeys(folder):  # noqa: N802 (the floor's class, imported where it is used)
    from uthctl.floor.table_keys import TableKeys

    return TableKeys(folder)


@pytest.fixture
def intake(store, keys):
    return Intake(store, CASINO, keys=TableKeys(keys))


def take_all(intake, table, made):
    return [intake.take(topic(table), message(table, record)) for record in made]


def by_table(store):
    return {tile["table"]: tile for tile in tiles(store)}


def test_a_forged_record_is_refused_and_the_boards_own_still_joins(intake, store, keys):
    # The attack: record 6, a validation of $5,000 to seat 9 the board
    # never made, with seq, prev and hash all right.
    genuine = signed(records(8), keyed(keys), "3")
    assert take_all(intake, "3", genuine[:5]) == [ACCEPTED] * 5
    forged = forged_next(genuine[4], cycle=1)
    assert chain.verify([forged], first_prev=genuine[4]["hash"])[0]  # its chain holds
    assert intake.take(topic("3"), message("3", forged)) == REFUSED
    guessed = dict(forged, auth=genuine[4]["auth"][:17] + "0" * 64)  # the key id, a made-up MAC
    assert intake.take(topic("3"), message("3", guessed)) == REFUSED
    assert take_all(intake, "3", genuine[5:]) == [ACCEPTED] * 3
    assert store.records("3") == genuine
    assert all("forged" in refusal["reason"] for refusal in store.refusals())
    alerts = [a for a in store.alerts("3") if a["kind"] == "forged"]
    assert len(alerts) == 1  # one standing a kind; both refusals are in `refusals`
    assert "client table-3 (table 3's account)" in alerts[0]["text"]
    assert "record 6 on table 3" in alerts[0]["text"]
    tile = by_table(store)["3"]
    assert tile["unsigned"] is False and tile["records"] == 8


def test_a_record_signed_with_another_tables_key_is_forged(intake, store, keys):
    three = signed(records(2), keyed(keys, "3"), "3")
    take_all(intake, "3", three[:1])
    four_key = keyed(keys, "4")
    stolen = signed([three[1]], four_key, "4")[0]  # the right record, table 4's key
    assert intake.take(topic("3"), message("3", stolen)) == REFUSED
    assert "forged" in store.refusals()[0]["reason"]
    assert intake.take(topic("3"), message("3", three[1])) == ACCEPTED


def test_an_unsigned_record_once_a_key_is_in_force_is_forged(store, keys):
    genuine = signed(records(3), keyed(keys), "3")
    take_all(Intake(store, CASINO, keys=TableKeys(keys)), "3", genuine[:2])
    # A floor started again: the key in force comes from the table's row.
    again = Intake(store, CASINO, keys=TableKeys(keys))
    unsigned = dict(genuine[2])
    del unsigned["auth"]
    assert again.take(topic("3"), message("3", unsigned)) == REFUSED
    assert "carries no authenticator" in store.refusals()[0]["reason"]
    assert [a["kind"] for a in store.alerts("3")] == ["forged"]
    assert again.take(topic("3"), message("3", genuine[2])) == ACCEPTED


def test_a_board_without_a_key_yet_is_held_until_its_first_signed_record_covers_it(
        intake, store, keys):
    # Its records carry no auth though the floor holds its key file: held,
    # not stored, for the table's account could have made them (issue 37;
    # test_intake_held.py has the attack).
    keyed(keys)
    made = records(3)
    assert take_all(intake, "3", made) == [EARLY] * 3
    assert store.count("records") == 0
    # Its first signed record covers them by its prev hash: asked again, they
    # join, said to carry no authenticator, and its key is in force.
    kid, key = record_auth.newest_key(keys / "3.json", "3")
    nxt = chain.link({"ev": "setting", "name": "x", "value": 1}, 4, made[-1]["hash"])
    nxt["auth"] = recordkey.record_auth(recordkey.parse_key(key), kid, nxt["hash"])
    assert intake.take(topic("3"), message("3", nxt)) == EARLY
    assert take_all(intake, "3", made + [nxt]) == [ACCEPTED] * 4
    assert store.table("3")["key_id"] == kid and by_table(store)["3"]["unsigned"] is False
    alerts = [a for a in store.alerts("3") if a["kind"] == "unsigned"]
    assert len(alerts) == 1 and "no authenticator" in alerts[0]["text"]


def test_the_unsigned_alert_clears_once_the_boards_key_is_in_force(store, keys):
    # The demo's tables: a board's first records (its configuration) come
    # before its key; held until its key record covers them, they are stored
    # under an `unsigned` alert. Once the key record puts the key in force
    # every later record must be signed (an unsigned one is forged), so the
    # alert is no longer true and stands no more.
    said = []
    intake = Intake(store, CASINO, log=said.append, keys=TableKeys(keys))
    path = keyed(keys)
    early = records(2)
    later = signed(records(3, start_prev=early[-1]["hash"], first_seq=3), path, "3")
    assert take_all(intake, "3", early + later[:1]) == [EARLY] * 3  # held, then vouched for
    assert take_all(intake, "3", early) == [ACCEPTED] * 2  # asked again: stored
    assert [a["kind"] for a in store.alerts("3", open_only=True)] == ["unsigned"]
    assert take_all(intake, "3", later) == [ACCEPTED] * 3
    assert store.alerts("3", open_only=True) == []
    cleared = [a for a in store.alerts("3") if a["kind"] == "unsigned"][0]
    assert cleared["acked_by"] == "" and cleared["acked_at"] is not None  # no person's
    kid = record_auth.newest_key(path, "3")[0]
    assert "cleared: key %s in force at record 3" % kid in cleared["text"]
    assert any("unsigned alert cleared" in line for line in said)
    assert by_table(store)["3"]["alerts"] == []


def test_a_floor_started_again_clears_an_unsigned_alert_left_standing(store, keys):
    path = keyed(keys)
    made = signed(records(3), path, "3")
    take_all(Intake(store, CASINO, keys=TableKeys(keys)), "3", made[:2])
    store.raise_alert("3", "unsigned", "left standing by a floor from before alerts cleared")
    take_all(Intake(store, CASINO, keys=TableKeys(keys)), "3", made[2:])
    assert store.alerts("3", open_only=True) == []
    # A table with no key file keeps its alert: no key is ever in force.
    take_all(Intake(store, CASINO, keys=TableKeys(keys)), "4", records(2))
    assert [a["kind"] for a in store.alerts("4", open_only=True)] == ["unsigned"]


def test_a_table_without_a_key_file_is_unsigned_and_says_so(intake, store):
    assert take_all(intake, "4", records(2)) == [ACCEPTED] * 2
    tile = by_table(store)["4"]
    assert tile["unsigned"] is True
    assert "holds no key file" in [a for a in tile["alerts"] if a["kind"] == "unsigned"][0][
        "text"]


def test_a_rekey_needs_no_restart(intake, store, keys):
    # The board's key record (signed with the old key) names a key added to
    # the file after the floor read it; the records after it are signed with it.
    path = keyed(keys)
    first = signed(records(2), path, "3")
    take_all(intake, "3", first)
    old_kid, old_key = record_auth.newest_key(path, "3")
    new_kid = record_auth.add_key(path, "3")
    replacing = chain.link({"ev": "key", "key_id": new_kid, "was": old_kid}, 3,
                           first[-1]["hash"])
    replacing["auth"] = recordkey.record_auth(recordkey.parse_key(old_key), old_kid,
                                              replacing["hash"])
    after = signed(records(2, start_prev=replacing["hash"], first_seq=4), path, "3")
    assert take_all(intake, "3", [replacing] + after) == [ACCEPTED] * 3
    assert store.table("3")["key_id"] == new_kid
    # The old key no longer signs.
    late = chain.link({"ev": "setting", "name": "x", "value": 2}, 6, after[-1]["hash"])
    late["auth"] = recordkey.record_auth(recordkey.parse_key(old_key), old_kid, late["hash"])
    assert intake.take(topic("3"), message("3", late)) == REFUSED
    assert "signed with key %s, which was replaced" % old_kid in store.refusals()[-1]["reason"]
    # The floor marked it so in the key file, for every floor after it (issue 37).
    [old] = [k for k in record_auth.read_key_file(path, "3")["keys"] if k["key_id"] == old_kid]
    assert (old["replaced_by"], old["replaced_at"]) == (new_kid, 3)


def replaced_key_file(keys, table="3"):
    # A table's key file as the floor leaves it after the board's `key`
    # record 3 replaced K1 with K2: K1 marked replaced. (key id, hex) of each.
    path = keyed(keys, table)
    k1 = record_auth.newest_key(path, table)
    record_auth.add_key(path, table)
    k2 = record_auth.newest_key(path, table)
    # Marked by hand, as docs/floor-design.md ("A replaced key") says.
    content = json.loads(path.read_text())
    content["keys"][0].update(replaced_by=k2[0], replaced_at=3)
    path.write_text(json.dumps(content))
    return path, k1, k2


def signed_with(made, key):
    kid, hex_key = key
    return [dict(r, auth=recordkey.record_auth(recordkey.parse_key(hex_key), kid, r["hash"]))
            for r in made]


def test_a_replaced_key_never_comes_back_on_a_table_new_to_the_floor(intake, store, keys):
    # The attack: a new (or restored) floor; the key file holds K1
    # and its replacement K2. A `key` record naming K1 (was: null, signed
    # with K1), then a $5,000 validation signed with K1: refused as forged.
    path, k1, k2 = replaced_key_file(keys)
    board = signed_with(records(6), k2)  # the board's own, all signed with K2
    back = signed_with([chain.link({"ev": "key", "key_id": k1[0], "was": None}, 1,
                                   chain.GENESIS)], k1)[0]
    paid = signed_with([forged_next(back)], k1)[0]
    assert intake.take(topic("3"), message("3", back)) == REFUSED
    assert intake.take(topic("3"), message("3", paid)) == REFUSED
    assert store.count("records") == 0
    [forged] = [a for a in store.alerts("3") if a["kind"] == "forged"]
    assert "client table-3 (table 3's account)" in forged["text"]
    assert "key %s, which was replaced" % k1[0] in forged["text"]
    # The board's own K2-signed records still join, K2 the key in force.
    assert take_all(intake, "3", board) == [ACCEPTED] * 6
    assert store.records("3") == board and store.table("3")["key_id"] == k2[0]


def test_a_key_record_naming_a_replaced_key_is_forged_even_signed_with_the_key_in_force(
        intake, store, keys):
    path, k1, k2 = replaced_key_file(keys)
    board = signed_with(records(2), k2)
    assert take_all(intake, "3", board) == [ACCEPTED] * 2
    back = signed_with([chain.link({"ev": "key", "key_id": k1[0], "was": k2[0]}, 3,
                                   board[-1]["hash"])], k2)[0]
    assert intake.take(topic("3"), message("3", back)) == REFUSED
    assert "puts key %s in force, which was replaced" % k1[0] in store.refusals()[-1]["reason"]
    assert [a["kind"] for a in store.alerts("3")] == ["forged"]
    assert store.table("3")["key_id"] == k2[0]


def test_a_key_file_others_can_read_refuses_the_record_under_a_keys_alert(
        intake, store, keys):
    path = keyed(keys)
    made = signed(records(1), path, "3")
    os.chmod(path, 0o644)
    assert intake.take(topic("3"), message("3", made[0])) == REFUSED
    assert store.count("records") == 0
    assert [a["kind"] for a in store.alerts("3")] == ["keys"]
    assert "can be read by others" in store.refusals()[0]["reason"]
    os.chmod(path, 0o600)  # put right: the same record joins, with no restart
    assert intake.take(topic("3"), message("3", made[0])) == ACCEPTED


def test_the_forged_records_payload_is_kept_in_refusals(intake, store, keys):
    genuine = signed(records(1), keyed(keys), "3")
    take_all(intake, "3", genuine)
    intake.take(topic("3"), message("3", forged_next(genuine[0], cycle=1)))
    kept = json.loads(store.refusals()[0]["payload"])
    assert kept["record"]["seat"] == 9 and kept["record"]["seq"] == 2


def test_add_table_writes_the_key_file_and_rekey_appends_the_next_key(tmp_path, capsys):
    from uthctl.cli import main as uthctl

    folder = str(tmp_path / "floor")
    assert uthctl(["floor", "--dir", folder, "init", "--casino", CASINO]) == 0
    capsys.readouterr()
    assert uthctl(["floor", "--dir", folder, "add-table", "3"]) == 0
    path = tmp_path / "floor" / "keys" / "3.json"
    assert "table's record key file: %s" % path in capsys.readouterr().out
    assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    first = record_auth.newest_key(path, "3")[0]
    assert uthctl(["floor", "--dir", folder, "--json", "rekey", "3"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["key_id"] == record_auth.newest_key(path, "3")[0] != first
    assert list(record_auth.load_keys(path, "3")) == [first, said["key_id"]]
    assert uthctl(["floor", "--dir", folder, "rekey", "9"]) != 0  # no such table


def test_a_forged_record_past_a_gap_raises_no_gap_and_asks_for_nothing(intake, store, keys):
    genuine = signed(records(9), keyed(keys), "3")
    take_all(intake, "3", genuine[:2])
    far = forged_next(dict(genuine[7], seq=8), cycle=1)  # seq 9, its own hash, no auth
    guessed = dict(far, auth=genuine[0]["auth"][:17] + "1" * 64)
    for record in (far, guessed):
        assert intake.take(topic("3"), message("3", record)) == REFUSED
    assert [a["kind"] for a in store.alerts("3")] == ["forged"] and intake.requests == []
    # The board's own record 9, early, is held back and the missing ones asked for.
    assert intake.take(topic("3"), message("3", genuine[8])) == EARLY
    assert intake.requests == [("3", {"cmd": "log", "since": 3})]
    assert take_all(intake, "3", genuine[2:]) == [ACCEPTED] * 7
    assert store.records("3") == genuine


def test_a_forgery_of_a_record_the_floor_holds_is_named_forged(intake, store, keys):
    # Record 6 forged after the board's own record 6 has joined.
    genuine = signed(records(6), keyed(keys), "3")
    take_all(intake, "3", genuine)
    late = forged_next(genuine[4], cycle=1)
    assert intake.take(topic("3"), message("3", late)) == REFUSED
    alerts = store.alerts("3")
    assert [a["kind"] for a in alerts] == ["forged"]
    assert "client table-3 (table 3's account)" in alerts[0]["text"]
    assert store.records("3") == genuine
