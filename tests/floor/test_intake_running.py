# The floor's record checks as running state (floor/running.py), on each
# database it takes: a reveal is checked against the commitment its cycle
# published, as the database holds it, across a restart of the floor, with
# no walk of the table's log; and the state the database holds is what the
# audit's own walk of the log (log_verify, ledger) finds.
import contextlib
import hashlib
import json

import pytest
from chains import CASINO, message, meters_message, simulated, topic
from sqlalchemy import text

from mystery import chain, configs
from uthctl.analysis import ledger, log_verify
from uthctl.floor import running
from uthctl.floor.database import FloorDatabase
from uthctl.floor.intake import ACCEPTED, KEPT, Intake

VALUE, SALT = 123_450_000, "5be1" * 8  # $123.45 in micro-dollars, and its salt


def committed(value, salt):
    # rules.md: the SHA-256 of "CENTS:SALT", computed here, not by the firmware.
    return hashlib.sha256(("%d:%s" % (value // 10_000, salt)).encode()).hexdigest()


def cycle_opened(rounds=3):
    # A reset of cycle 1 committing to VALUE, then rounds that move no money.
    made = [chain.link({"ev": "reset", "cycle": 1, "config": "A1", "meter": 100_000_000,
                        "commitment": committed(VALUE, SALT)}, 1, chain.GENESIS)]
    for number in range(1, rounds + 1):
        made.append(chain.link({"ev": "round", "round": number, "contributions": [],
                                "meter": 100_000_000}, len(made) + 1, made[-1]["hash"]))
    return made


def reveal(after, ev="hit", value=VALUE, salt=SALT, **fields):
    # The next record, revealing value and salt; its own copy of the
    # commitment is the one its value opens, as a forger would write it.
    event = {"ev": ev, "cycle": 1, "hit_value": value, "salt": salt,
             "commitment": committed(value, salt)}
    if ev == "hit":
        event.update(seat=2, award=value, round=after["round"] if "round" in after else 3)
    event.update(fields)
    return chain.link(event, after["seq"] + 1, after["hash"])


def took(intake, table, made):
    return [intake.take(topic(table), message(table, record)) for record in made]


@contextlib.contextmanager
def no_walk_of_the_log(store):
    # The floor resumes from the state the database holds: reading a table's
    # whole log fails the test.
    def walked(*_args, **_kwargs):
        raise AssertionError("the table's log was read again")
    saved = store.records, store.walk_records
    store.records = store.walk_records = walked
    try:
        yield
    finally:
        store.records, store.walk_records = saved


def test_a_forged_reveal_against_the_stored_open_commitment_is_named_in_an_alert(store):
    # The hit's own copy of the commitment matches its forged value; the
    # commitment the cycle's reset published, which the floor holds, does not.
    intake = Intake(store, CASINO)
    opened = cycle_opened()
    assert took(intake, "3", opened) == [ACCEPTED] * 4
    forged = reveal(opened[-1], value=200_000_000, salt="aa" * 16)
    assert took(intake, "3", [forged]) == [ACCEPTED]  # its chain holds: the board's own
    alerts = store.alerts("3")
    assert [a["kind"] for a in alerts] == ["commitment"]
    assert "do not match the commitment published at its reset" in alerts[0]["text"]


def test_a_true_reveal_against_the_stored_commitment_raises_nothing(store):
    intake = Intake(store, CASINO)
    opened = cycle_opened()
    took(intake, "3", opened + [reveal(opened[-1])])
    assert store.alerts("3") == []


@pytest.mark.parametrize("ev", ["hit", "redraw"])
def test_a_restarted_floor_resumes_from_the_stored_state_and_refuses_a_bad_reveal(
        db_url, ev):
    opened = cycle_opened(rounds=40)
    with contextlib.closing(FloorDatabase(db_url)) as first:
        assert set(took(Intake(first, CASINO), "3", opened)) == {ACCEPTED}
    with contextlib.closing(FloorDatabase(db_url)) as store:
        intake = Intake(store, CASINO)
        extra = {"revealed": committed(VALUE + 10_000, SALT)} if ev == "redraw" else {}
        bad = reveal(opened[-1], ev=ev, value=VALUE + 10_000, **extra)
        with no_walk_of_the_log(store):
            assert took(intake, "3", [bad]) == [ACCEPTED]
        alerts = store.alerts("3")
        assert [a["kind"] for a in alerts] == ["commitment"]
        assert "cycle 1" in alerts[0]["text"] and "commitment" in alerts[0]["text"]


def test_a_restarted_floor_adds_up_a_snapshot_without_reading_the_log(db_url):
    log, meters = simulated()
    middle = len(log) // 2
    with contextlib.closing(FloorDatabase(db_url)) as first:
        took(Intake(first, CASINO), "3", log[:middle])
    with contextlib.closing(FloorDatabase(db_url)) as store:
        intake = Intake(store, CASINO)
        with no_walk_of_the_log(store):
            assert set(took(intake, "3", log[middle:])) == {ACCEPTED}
            assert intake.take(topic("3", "meters"), meters_message("3", meters)) == KEPT
            wrong = dict(meters, contributed=meters["contributed"] + 1,
                         meter=meters["meter"] + 1)
            assert intake.take(topic("3", "meters"), meters_message("3", wrong)) != KEPT
        assert [a["kind"] for a in store.alerts("3")] == ["accounts"]


def test_a_database_from_before_the_running_checks_is_walked_once(db_url):
    # Its tables row has no checks and it has no cycles table: opening it
    # adds them (schema.upgrade), the first record walks the log once and
    # stores the state, and a floor started after that reads no log.
    opened = cycle_opened(rounds=20)
    with contextlib.closing(FloorDatabase(db_url)) as first:
        took(Intake(first, CASINO), "3", opened[:-1])
        with first.engine.begin() as db:
            db.execute(text("DROP TABLE cycles"))
            db.execute(text("ALTER TABLE tables DROP COLUMN checks"))
    with contextlib.closing(FloorDatabase(db_url)) as upgraded:
        assert upgraded.table("3")["checks"] is None
        took(Intake(upgraded, CASINO), "3", opened[-1:])
        assert json.loads(upgraded.table("3")["checks"])["seq"] == opened[-1]["seq"]
    with contextlib.closing(FloorDatabase(db_url)) as store:
        intake = Intake(store, CASINO)
        with no_walk_of_the_log(store):
            took(intake, "3", [reveal(opened[-1], value=VALUE + 10_000)])
        assert [a["kind"] for a in store.alerts("3")] == ["commitment"]


def test_a_database_from_before_the_running_checks_is_read_without_change(db_url):
    # A reader that must not change it (the audit: FloorDatabase(create=False)).
    with contextlib.closing(FloorDatabase(db_url)) as first:
        took(Intake(first, CASINO), "3", cycle_opened(rounds=2))
        with first.engine.begin() as db:
            db.execute(text("DROP TABLE cycles"))
            db.execute(text("ALTER TABLE tables DROP COLUMN checks"))
    with contextlib.closing(FloorDatabase(db_url, create=False)) as reader:
        assert reader.table("3")["last_seq"] == 3 and "checks" not in reader.table("3")
        assert len(reader.records("3")) == 3
    with contextlib.closing(FloorDatabase(db_url)) as upgraded:  # for the fixture's drop_all
        assert upgraded.table("3")["checks"] is None


def redrawn_log():
    # The firmware's engine's log (hits, resets, rounds, a configuration),
    # then a new cycle's reset, its value redrawn and revealed, chained on:
    # every kind of record the checks keep state for.
    log, _ = simulated(rounds=600)
    config = configs.get(log[-1].get("config", "B1"))
    first, salt = config.minimum + 10_000, "c0" * 16  # the exposed value: min + 1 cent
    meter = log[-1]["meter"] + config.minimum
    made = list(log)
    for event in ({"ev": "reset", "cycle": 3, "config": config.name, "meter": meter,
                   "commitment": committed(first, salt)},
                  {"ev": "redraw", "cycle": 3, "hit_value": first, "salt": salt,
                   "revealed": committed(first, salt), "commitment": committed(VALUE, SALT),
                   "meter": meter}):
        made.append(chain.link(event, made[-1]["seq"] + 1, made[-1]["hash"]))
    return made


def test_the_stored_state_agrees_with_the_audits_walk_of_the_log(store):
    intake = Intake(store, CASINO)
    took(intake, "3", redrawn_log())
    records = store.records("3")
    held = running.Running.loads(store.table("3")["checks"],
                                 lambda fact, key: store.cycle_fact("3", fact, key))
    # The audit's walk: verify_log for the whole log, its LogCheck record by
    # record for the cycles, and a Ledger from record 1.
    verdict = log_verify.verify_log(records)
    check = log_verify.LogCheck()
    for record in records:
        assert log_verify.check_record(check, record) is None
    walked = ledger.Ledger(True, chart=False).walk(records)
    assert held.seq == records[-1]["seq"] and held.problem == verdict.get("problem")
    assert (held.check.hits, held.check.redraws, held.check.anchored, held.check.settled) == (
        verdict["hits"], verdict["redraws"], verdict["anchored"], verdict["settled"])
    assert verdict["redraws"] == 1 and verdict["hits"] >= 1
    for name in running.LEDGER_STATE + tuple(running.LEDGER_LATER):  # a tuple read back is a list
        assert json.loads(json.dumps(getattr(held.ledger, name))) == json.loads(
            json.dumps(getattr(walked, name))), name
    assert held.ledger.config.name == walked.config.name
    assert walked.problems == [] and walked.meter == records[-1]["meter"]
    for cycle in check.resets:
        assert held.check.resets[cycle] == check.resets[cycle]
        assert tuple(held.check.published[cycle]) == check.published[cycle]
        assert held.ledger.commitments[cycle] == walked.commitments[cycle]


def test_a_count_of_qualifying_wagers_its_rounds_do_not_add_up_to_is_an_alert(store):
    # 13:69E-1.39A(b)(1)'s meters against the rounds the floor holds.
    log, meters = simulated()
    intake = Intake(store, CASINO)
    assert set(took(intake, "3", log)) == {ACCEPTED}
    assert intake.take(topic("3", "meters"), meters_message("3", meters)) == KEPT
    wrong = dict(meters, qualifying_wagers=meters["qualifying_wagers"] - 1)
    assert intake.take(topic("3", "meters"), meters_message("3", wrong)) != KEPT
    alerts = store.alerts("3")
    assert [a["kind"] for a in alerts] == ["accounts"]
    assert "qualifying_wagers" in alerts[0]["text"]


def test_a_state_stored_before_the_wager_meters_takes_them_from_the_next_round(db_url):
    # A floor updated with its database: the state it kept has no wager
    # meters; they are known again from the next round, which states them.
    log, meters = simulated()
    middle = len(log) // 2
    with contextlib.closing(FloorDatabase(db_url)) as first:
        took(Intake(first, CASINO), "3", log[:middle])
        state = json.loads(first.table("3")["checks"])
        for name in running.LEDGER_LATER:
            del state["ledger"][name]
        with first.engine.begin() as db:
            db.execute(text("UPDATE tables SET checks = :checks WHERE table_id = '3'"),
                       {"checks": json.dumps(state, sort_keys=True)})
    with contextlib.closing(FloorDatabase(db_url)) as store:
        intake = Intake(store, CASINO)
        with no_walk_of_the_log(store):
            assert set(took(intake, "3", log[middle:])) == {ACCEPTED}
            assert intake.take(topic("3", "meters"), meters_message("3", meters)) == KEPT
            wrong = dict(meters, wagered=meters["wagered"] + 10_000)
            assert intake.take(topic("3", "meters"), meters_message("3", wrong)) != KEPT
        assert [a["kind"] for a in store.alerts("3")] == ["accounts"]
