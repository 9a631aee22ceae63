# Where a table's log on the floor starts (issue 37, point 5): at record 1,
# or where the board's own signed head says the log it keeps starts; never
# where the table's host says, with the bridge's "first_kept" or the meters'
# `log_dropped`, which no key covers. On SQLite and PostgreSQL, as every
# intake test.
import json

import pytest
from board_standin import head_answer
from chains import CASINO, keyed, message, meters_message, signed, simulated, topic

from uthctl.analysis import record_auth
from uthctl.floor.intake import ACCEPTED, EARLY, KEPT, REFUSED, Intake
from uthctl.floor.table_keys import TableKeys


@pytest.fixture
def intake(store, keys):
    return Intake(store, CASINO, keys=TableKeys(keys))


@pytest.fixture(scope="module")
def play():
    # 826 records of the firmware's own engine: its one hit at 807,
    # validated at 808, paid at 809 (the list's index is seq - 1).
    made, meters = simulated("A1", 820, 3)
    assert [r["ev"] for r in made[806:809]] == ["hit", "validated", "paid"]
    return made, meters


def kept_from(made, first):
    return [r for r in made if r["seq"] >= first]


def first_kept(table, record):
    return json.dumps({"table": table, "record": record, "first_kept": True}).encode()


def head_requests(intake, table="3"):
    return [request for name, request in intake.requests
            if name == table and request["cmd"] == "head"]


def answer_head(intake, key_file, kept, table="3", **changes):
    # The board's answer to the floor's latest `head`, as its bridge publishes it.
    nonce = head_requests(intake, table)[-1]["nonce"]
    key_hex = record_auth.newest_key(key_file, table)[1]
    answer = dict(head_answer(key_hex, kept, nonce), **changes)
    body = {"table": table, "head": answer, "asked": nonce}
    return intake.take(topic(table), json.dumps(body).encode())


def take_all(intake, made, table="3"):
    return [intake.take(topic(table), message(table, r)) for r in made]


def test_first_kept_just_after_a_hit_never_starts_a_tables_log(intake, store, keys, play):
    # The attack: the host publishes the board's own records from 810
    # (after the hit, its validation and its payment) as its first kept, the
    # meters' log_dropped set to match.
    made, meters = play
    genuine = signed(made, keyed(keys), "3")
    assert intake.take(topic("3"), first_kept("3", genuine[809])) == EARLY
    assert intake.take(topic("3", "meters"), meters_message(
        "3", dict(meters, log_dropped=809))) == KEPT
    assert store.count("records") == 0
    assert ("3", {"cmd": "log", "since": 1}) in intake.requests
    # The board keeps its whole log: its own records from 1 all join, none "forged".
    assert take_all(intake, genuine) == [ACCEPTED] * len(genuine)
    assert store.records("3") == genuine
    assert [a["kind"] for a in store.alerts("3")] == []
    assert store.refusals() == []


def test_a_new_table_starts_where_its_boards_signed_head_says(intake, store, keys, play):
    made, _ = play
    key_file = keyed(keys)
    kept = kept_from(signed(made, key_file, "3"), 300)  # its bounded log dropped 1-299
    assert intake.take(topic("3"), message("3", kept[0])) == EARLY
    assert len(head_requests(intake)) == 1  # the board asked, over a fresh nonce
    assert answer_head(intake, key_file, kept) == KEPT
    assert intake.requests[-1] == ("3", {"cmd": "log", "since": 300})
    assert take_all(intake, kept) == [ACCEPTED] * len(kept)
    assert store.records("3") == kept
    [gap] = store.alerts("3")
    assert gap["kind"] == "gap" and "starts at record 300" in gap["text"]


def mark_first_replaced(key_file, table="3"):
    # A second key added and the first marked replaced, as the floor marks
    # it on the board's replacement (docs/floor-design.md, "A replaced key"); the first's hex.
    old = record_auth.newest_key(key_file, table)
    record_auth.add_key(key_file, table)
    content = json.loads(key_file.read_text())
    content["keys"][0].update(replaced_by=content["keys"][1]["key_id"], replaced_at=5)
    key_file.write_text(json.dumps(content))
    return old[1]


@pytest.mark.parametrize("wrong", ["dropped", "nonce", "key", "replaced"])
def test_a_head_that_is_not_the_boards_answer_to_the_floor_starts_nothing(
        intake, store, keys, play, wrong):
    made, _ = play
    key_file = keyed(keys)
    key_hex = record_auth.newest_key(key_file, "3")[1]
    if wrong == "key":  # made with a key the table's key file does not hold
        key_hex = record_auth.newest_key(keyed(keys, "9"), "9")[1]
    elif wrong == "replaced":  # made with a key the table's key file marks replaced
        key_hex = mark_first_replaced(key_file)
    kept = kept_from(signed(made, key_file, "3"), 810)  # with the key in force
    intake.take(topic("3"), first_kept("3", kept[0]))
    nonce = head_requests(intake)[-1]["nonce"]
    if wrong == "dropped":  # the board's answer for 1-299 dropped, `dropped` moved on
        answer = dict(head_answer(key_hex, kept_from(made, 300), nonce), dropped=809)
    elif wrong == "nonce":  # an answer to another asker, shown again
        answer = head_answer(key_hex, kept, "ab" * 16)
    else:
        answer = head_answer(key_hex, kept, nonce)
    intake.take(topic("3"), json.dumps({"table": "3", "head": answer, "asked": nonce}).encode())
    assert intake.take(topic("3"), message("3", kept[0])) in (EARLY, REFUSED)
    assert store.count("records") == 0
    # The board's own answer, to the same nonce, does start it.
    right = head_answer(record_auth.newest_key(key_file, "3")[1], kept, nonce)
    intake.take(topic("3"), json.dumps({"table": "3", "head": right, "asked": nonce}).encode())
    assert intake.take(topic("3"), message("3", kept[0])) == ACCEPTED


def test_a_record_before_the_boards_oldest_kept_is_refused(intake, store, keys, play):
    made, _ = play
    key_file = keyed(keys)
    genuine = signed(made, key_file, "3")
    intake.take(topic("3"), message("3", genuine[399]))
    answer_head(intake, key_file, kept_from(genuine, 400))
    assert intake.take(topic("3"), message("3", genuine[0])) == REFUSED  # a record 1 now
    assert "before its board's oldest kept record, 400" in store.refusals()[0]["reason"]
    assert take_all(intake, genuine[399:]) == [ACCEPTED] * (len(genuine) - 399)
