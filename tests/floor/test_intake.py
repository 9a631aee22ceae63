# The floor's check of what arrives, on each database it takes: a table's
# records join its hash chain in order; duplicates are dropped; gaps,
# forgeries, replays, garbage and wrong tables are refused with a reason,
# asked for again where the table can resend, and never stored as records.
import hashlib
import json

import pytest
from chains import CASINO, message, meters_message, records, simulated, topic

from mystery import chain
from uthctl.analysis import ledger
from uthctl.floor.intake import ACCEPTED, DUPLICATE, EARLY, KEPT, REFUSED, Intake


@pytest.fixture
def intake(store):
    return Intake(store, CASINO)


def test_a_chain_is_stored_record_for_record(intake, store):
    chain = records(5)
    assert [intake.take(topic("3"), message("3", r)) for r in chain] == [ACCEPTED] * 5
    assert store.records("3") == chain
    state = store.table("3")
    assert (state["first_seq"], state["last_seq"], state["last_hash"]) == (
        1, 5, chain[-1]["hash"])


def test_a_resent_record_is_a_duplicate_and_stored_once(intake, store):
    chain = records(3)
    for record in chain + chain[1:]:
        intake.take(topic("3"), message("3", record))
    assert store.records("3") == chain
    assert intake.counts[DUPLICATE] == 2 and store.refusals() == []
    assert store.table("3")["duplicates"] == 2


def test_a_record_past_a_gap_is_held_back_and_the_missing_ones_asked_for(intake, store):
    chain = records(5)
    intake.take(topic("3"), message("3", chain[0]))
    assert intake.take(topic("3"), message("3", chain[3])) == EARLY
    assert store.count("records") == 1 and store.refusals() == []
    assert intake.requests == [("3", {"cmd": "log", "since": 2})]
    assert [a["kind"] for a in store.alerts("3")] == ["gap"]
    for record in chain[1:]:  # the table resends from record 2
        intake.take(topic("3"), message("3", record))
    assert store.records("3") == chain


def test_an_altered_record_is_refused_though_its_seq_and_prev_fit(intake, store):
    chain = records(3)
    forged = dict(chain[2], value=1)  # the old hash kept
    intake.take(topic("3"), message("3", chain[0]))
    intake.take(topic("3"), message("3", chain[1]))
    assert intake.take(topic("3"), message("3", forged)) == REFUSED
    assert "altered" in store.refusals()[0]["reason"]
    assert store.records("3") == chain[:2]
    assert intake.take(topic("3"), message("3", chain[2])) == ACCEPTED


def test_a_record_rehashed_onto_another_chain_is_refused(intake, store):
    # A forger who hashes correctly but cannot make it follow the floor's head.
    chain = records(2)
    other = records(2, tag="B2")
    intake.take(topic("3"), message("3", chain[0]))
    assert intake.take(topic("3"), message("3", other[1])) == REFUSED
    assert "does not follow" in store.refusals()[0]["reason"]
    assert store.records("3") == chain[:1]


def test_another_tables_records_replayed_are_refused(intake, store):
    four = records(3, tag="table 4")
    three = records(3, tag="table 3")
    for record in four:
        intake.take(topic("4"), message("4", record))
    intake.take(topic("3"), message("3", three[0]))
    # Records 1 and 2 do not fit table 3's chain; record 3 is past its head: held back.
    assert [intake.take(topic("3"), message("3", r)) for r in four] == [REFUSED, REFUSED, EARLY]
    assert store.records("3") == three[:1] and store.records("4") == four
    assert {a["kind"] for a in store.alerts("3")} == {"refused", "gap"}


def test_a_replayed_old_record_that_differs_is_refused_not_a_duplicate(intake, store):
    chain = records(3)
    for record in chain:
        intake.take(topic("3"), message("3", record))
    changed = dict(chain[1], note="again")
    assert intake.take(topic("3"), message("3", changed)) == REFUSED
    assert store.records("3") == chain


@pytest.mark.parametrize("payload, reason", [
    (b"\xff\xfe garbage", "not a JSON object"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"table": "3"}', "neither a record nor an event"),
    (b'{"table": "3", "record": {"seq": 1}}', "not a log record"),
    (b'{"table": "3", "record": {"seq": 1, "prev": "00", "hash": "11", "ev": "x"}}',
     "not a log record"),
    (b'{"table": "3", "event": {"ev": "hit", "seq": 9}}', "records come as records"),
])
def test_garbage_on_the_event_topic_is_refused(intake, store, payload, reason):
    assert intake.take(topic("3"), payload) == REFUSED
    assert reason in store.refusals()[0]["reason"]
    assert store.count("records") == 0


def test_a_message_naming_another_table_is_refused(intake, store):
    record = records(1)[0]
    assert intake.take(topic("3"), message("4", record)) == REFUSED
    assert "says table '4'" in store.refusals()[0]["reason"]
    assert store.count("records") == 0


@pytest.mark.parametrize("name", ["uth/riverside/3", "uth/elsewhere/3/event", "other/x/3/event",
                                  "uth/riverside/3/4/event"])
def test_messages_off_the_floors_topics_are_refused(intake, store, name):
    assert intake.take(name, message("3", records(1)[0])) == REFUSED
    assert store.count("records") == 0 and len(store.refusals()) == 1


@pytest.mark.parametrize("kind, body", [
    ("meters", {"meters": "lots"}), ("meters", {"meters": {"log_seq": "9"}}),
    ("status", {"status": "on fire"}),
])
def test_bad_snapshots_are_refused(intake, store, kind, body):
    assert intake.take(topic("3", kind), json.dumps(dict(body, table="3")).encode()) == REFUSED
    assert store.table("3") is None


def test_a_meters_head_past_the_floors_asks_for_the_records(intake, store):
    chain = records(2)
    intake.take(topic("3"), message("3", chain[0]))
    meters = {"table": "3", "meters": {"log_seq": 2, "log_hash": chain[1]["hash"]}}
    assert intake.take(topic("3", "meters"), json.dumps(meters).encode()) == KEPT
    assert intake.requests == [("3", {"cmd": "log", "since": 2})]


def test_offline_and_faults_raise_alerts_that_one_name_acknowledges(intake, store):
    intake.take(topic("3", "status"), b'{"table": "3", "status": "offline"}')
    intake.take(topic("3", "status"), b'{"table": "3", "status": "offline"}')
    fault = {"table": "3", "event": {"ev": "fault", "reason": "I2C expander 0x21: no answer"}}
    intake.take(topic("3"), json.dumps(fault).encode())
    standing = store.alerts("3", open_only=True)
    assert [(a["kind"], a["text"]) for a in standing] == [
        ("offline", "the table's bridge went offline"),
        ("fault", "I2C expander 0x21: no answer")]
    assert store.acknowledge(standing[0]["id"], "J. Smith")
    assert not store.acknowledge(standing[0]["id"], "someone else")  # once, by one name
    assert store.alerts("3")[0]["acked_by"] == "J. Smith"
    assert [a["kind"] for a in store.alerts("3", open_only=True)] == ["fault"]
    assert store.count("notices") == 1


def revealed_cycle(commitment_of):
    # A reset that commits to a hit value, and the hit that reveals it, chained.
    value, salt = 123_450_000, "5be1" * 8  # $123.45, in micro-dollars
    text = "%d:%s" % (value // 10_000, salt)  # rules.md: SHA-256 of "CENTS:SALT"
    committed = commitment_of(hashlib.sha256(text.encode()).hexdigest())
    reset = chain.link({"ev": "reset", "cycle": 1, "config": "A1", "meter": 100_000_000,
                        "commitment": committed}, 1, chain.GENESIS)
    hit = chain.link({"ev": "hit", "cycle": 1, "seat": 2, "award": value, "round": 9,
                      "hit_value": value, "salt": salt, "commitment": committed}, 2,
                     reset["hash"])
    return [reset, hit]


def test_a_hit_that_opens_its_commitment_raises_nothing(intake, store):
    for record in revealed_cycle(lambda right: right):
        assert intake.take(topic("3"), message("3", record)) == ACCEPTED
    assert store.alerts("3") == []


def test_a_hit_that_does_not_open_its_commitment_is_kept_under_an_alert(intake, store):
    # Its chain holds, so it is the board's own record: kept, and the floor told.
    for record in revealed_cycle(lambda right: "0" * 64):
        assert intake.take(topic("3"), message("3", record)) == ACCEPTED
    alerts = store.alerts("3")
    assert [a["kind"] for a in alerts] == ["commitment"]
    assert "do not match the commitment" in alerts[0]["text"]


def test_a_new_tables_first_record_past_1_is_refused_and_its_log_asked_for(intake, store):
    # The floor came up after the bridge had published the table's first records.
    chain = records(5)
    assert intake.take(topic("3"), message("3", chain[3])) == EARLY
    assert intake.requests == [("3", {"cmd": "log", "since": 1})]
    for record in chain:
        intake.take(topic("3"), message("3", record))
    assert store.records("3") == chain


def test_the_hosts_first_kept_does_not_start_the_floors_log(intake, store):
    # Only the board's signed head does (test_intake_start.py): a bridge's
    # "first_kept" is its host's word, which no key covers (issue 37).
    chain = records(5)
    first = json.dumps({"table": "3", "record": chain[3], "first_kept": True}).encode()
    assert intake.take(topic("3"), first) == EARLY
    assert intake.requests == [("3", {"cmd": "log", "since": 1})]
    assert store.count("records") == 0


def test_a_snapshot_the_records_add_up_to_raises_nothing(intake, store):
    log, meters = simulated()
    assert meters["hits"] >= 1 and meters["paid"] > 0  # the accounts have moved
    for record in log:
        assert intake.take(topic("3"), message("3", record)) == ACCEPTED
    assert intake.take(topic("3", "meters"), meters_message("3", meters)) == KEPT
    assert store.alerts("3") == [] and store.refusals() == []
    assert json.loads(store.table("3")["meters"]) == meters


@pytest.mark.parametrize("change", [
    {"meter": 100, "contributed": 100},  # the identity holds; the records say otherwise
    {"paid": 1},  # the identity itself broken
])
def test_a_snapshot_the_records_do_not_add_up_to_is_refused_under_an_alert(
        intake, store, change):
    log, meters = simulated()
    for record in log:
        intake.take(topic("3"), message("3", record))
    wrong = dict(meters, **{name: meters[name] + step for name, step in change.items()})
    assert intake.take(topic("3", "meters"), meters_message("3", wrong)) == REFUSED
    alerts = store.alerts("3")
    assert [a["kind"] for a in alerts] == ["accounts"]
    named = "identity" if "meter" not in change else "contributed"
    assert named in alerts[0]["text"]
    assert [r["topic"] for r in store.refusals()] == [topic("3", "meters")]
    assert store.table("3")["meters"] is None  # never the table's meters
    assert intake.take(topic("3", "meters"), meters_message("3", meters)) == KEPT


def test_the_records_are_added_up_as_they_arrive(intake, store):
    # The final meters claimed at an earlier head do not add up; the floor's
    # sum then goes on record by record to the head they do add up at.
    log, meters = simulated()
    middle = next(n for n, r in enumerate(log) if n > 50 and r["ev"] == "round")
    for record in log[:middle]:
        intake.take(topic("3"), message("3", record))
    early = dict(meters, log_seq=log[middle - 1]["seq"], log_hash=log[middle - 1]["hash"])
    assert intake.take(topic("3", "meters"), meters_message("3", early)) == REFUSED
    for record in log[middle:]:
        intake.take(topic("3"), message("3", record))
    assert intake.take(topic("3", "meters"), meters_message("3", meters)) == KEPT
    assert [a["kind"] for a in store.alerts("3")] == ["accounts"]


def test_the_running_sums_keep_no_chart_while_the_audits_ledger_does(intake, store):
    # The floor adds a table's records up for as long as it runs: a chart
    # point a record would grow without end; the audit's one-off walk keeps it.
    log, meters = simulated()
    middle = len(log) // 2
    for record in log[:middle]:
        intake.take(topic("3"), message("3", record))
    early = dict(meters, log_seq=log[middle - 1]["seq"], log_hash=log[middle - 1]["hash"])
    intake.take(topic("3", "meters"), meters_message("3", early))  # starts the running sums
    for record in log[middle:]:
        intake.take(topic("3"), message("3", record))
    assert intake.take(topic("3", "meters"), meters_message("3", meters)) == KEPT
    running = intake.ledgers["3"]
    assert running.series == [] and running.hit_marks == []
    audited = ledger.Ledger(True).walk(log)
    assert len(audited.series) == len(log) and len(audited.hit_marks) == sum(
        record["ev"] == "hit" for record in log)
    assert (running.contributed, running.paid, running.meter) == (
        audited.contributed, audited.paid, audited.meter)


def test_an_altered_record_past_a_gap_is_refused_not_asked_about(intake, store):
    # Its hash is not its own, so no resend can make it join: no gap, no request.
    chain = records(5)
    intake.take(topic("3"), message("3", chain[0]))
    altered = dict(chain[3], value=1)
    assert intake.take(topic("3"), message("3", altered)) == REFUSED
    assert "altered" in store.refusals()[0]["reason"]
    assert intake.requests == [] and [a["kind"] for a in store.alerts("3")] == ["refused"]


def test_a_boards_head_answer_for_the_audit_is_kept_not_refused(intake, store):
    answer = {"table": "3", "head": {"ok": True, "reply": "head", "seq": 0, "nonce": "00"}}
    assert intake.take(topic("3"), json.dumps(answer).encode()) == KEPT
    assert store.refusals() == [] and store.count("records") == 0
