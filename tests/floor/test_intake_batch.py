# Group commit (intake_batch.py): the messages waiting taken in one
# transaction, on both databases; one bad message refuses only itself; a
# failure rolls the batch back and takes its messages again one at a time;
# the floor acknowledges a message to the broker only once it is committed,
# so a floor that dies mid-batch loses nothing it acknowledged and the
# broker's redelivery stores each record once. The batch closes on a count
# or a time, whichever comes first.
import contextlib
import json
import time

import pytest
import servers
from chains import CASINO, keyed, message, records, signed, topic

from mystery import chain, recordkey
from uthctl.analysis import record_auth
from uthctl.floor.accounts import FLOOR_USER
from uthctl.floor.database import FloorDatabase
from uthctl.floor.intake import ACCEPTED, INTERNAL, REFUSED, Intake
from uthctl.floor.intake_batch import gather, take_batch
from uthctl.floor.service import Floor
from uthctl.floor.table_keys import TableKeys
from uthctl.wire import topics
from uthctl.wire.mqtt import Client, read_credentials

WAIT_S = 20.0


def test_a_bad_message_in_a_batch_refuses_only_itself(store):
    made = records(4, tag="table 4")
    tampered = dict(made[2], value=1)  # its hash no longer its own
    batch = [(topic("4"), message("4", made[0])), (topic("4"), message("4", made[1])),
             (topic("4"), b"{not json"), (topic("4"), message("4", tampered)),
             (topic("4"), message("4", made[2])), (topic("4"), message("4", made[3]))]
    outcomes = take_batch(Intake(store, CASINO), batch)
    assert outcomes == [ACCEPTED, ACCEPTED, REFUSED, REFUSED, ACCEPTED, ACCEPTED]
    assert store.records("4") == made
    assert [r["payload"] for r in store.refusals()] == [
        "{not json", json.dumps({"table": "4", "record": tampered})]
    head = store.table("4")
    assert (head["first_seq"], head["last_seq"], head["last_hash"]) == (1, 4, made[3]["hash"])
    # A restarted floor takes the next record on the head the batch wrote.
    more = records(5, tag="table 4")[4]
    assert Intake(store, CASINO).take(topic("4"), message("4", more)) == ACCEPTED
    assert store.records("4") == made + [more]


def test_a_table_met_by_its_status_first_starts_at_its_first_record(store):
    # Its row made by the status, in the same batch: where its log starts
    # on the floor is its first record's seq, not its last's.
    made = records(3, tag="table 4")
    status = json.dumps({"table": "4", "status": "online", "board": {}}).encode()
    batch = [(topic("4", "status"), status)] + [(topic("4"), message("4", r)) for r in made]
    assert take_batch(Intake(store, CASINO), batch)[1:] == [ACCEPTED] * 3
    head = store.table("4")
    assert (head["first_seq"], head["last_seq"]) == (1, 3)


def test_a_failure_in_a_batch_rolls_it_back_and_refuses_that_message_alone(store,
                                                                            monkeypatch):
    said = []
    intake = Intake(store, CASINO, log=said.append)
    made = records(4, tag="table 4")
    live = json.dumps({"table": "4", "event": {"ev": "fault", "reason": "x"}}).encode()
    real_notice = store.notice

    def notice_fails_on_fault(table, event):
        if event["ev"] == "fault":
            raise OSError("disk gone")
        real_notice(table, event)

    monkeypatch.setattr(store, "notice", notice_fails_on_fault)
    batch = [(topic("4"), message("4", made[0])), (topic("4"), message("4", made[1])),
             (topic("4"), live), (topic("4"), message("4", made[2])),
             (topic("4"), message("4", made[3]))]
    assert take_batch(intake, batch) == [ACCEPTED, ACCEPTED, REFUSED, ACCEPTED, ACCEPTED]
    assert store.records("4") == made
    assert [r["reason"] for r in store.refusals()] == ["internal error: OSError: disk gone"]
    assert intake.counts[ACCEPTED] == 4 and intake.counts[INTERNAL] == 1
    assert store.table("4")["internal"] == 1
    assert any("rolled back (OSError: disk gone)" in line for line in said)
    # Said once each: the rolled-back batch's words were dropped with it.
    assert sum("refused" in line for line in said) == 1


def commit_refused(store):
    # FloorDatabase.batch with the database refusing the commit, its last step.
    @contextlib.contextmanager
    def failing_batch():
        with FloorDatabase.batch(store):
            yield
            raise OSError("commit refused")

    return failing_batch


def test_a_batch_that_cannot_commit_is_taken_one_at_a_time(store, monkeypatch):
    # Nothing of it half kept: every message taken again in a transaction
    # of its own.
    made = records(3, tag="table 4")
    monkeypatch.setattr(store, "batch", commit_refused(store))
    intake = Intake(store, CASINO)
    outcomes = take_batch(intake, [(topic("4"), message("4", r)) for r in made])
    assert outcomes == [ACCEPTED] * 3 and store.records("4") == made
    assert store.refusals() == [] and intake.counts[ACCEPTED] == 3


def test_a_replaced_key_is_marked_in_its_file_only_once_its_record_is_committed(
        store, keys, monkeypatch):
    # The board's key record in a batch that is rolled back, and then not
    # stored on its own either: its old key is not marked replaced (it is
    # still the key in force), and the record, coming again, joins.
    path = keyed(keys)
    intake = Intake(store, CASINO, keys=TableKeys(keys))
    first = signed(records(2), path, "3")
    old_kid, old_key = record_auth.newest_key(path, "3")
    new_kid = record_auth.add_key(path, "3")
    replacing = chain.link({"ev": "key", "key_id": new_kid, "was": old_kid}, 3,
                           first[-1]["hash"])
    replacing["auth"] = recordkey.record_auth(recordkey.parse_key(old_key), old_kid,
                                              replacing["hash"])
    real_append = store.append

    def append_fails_alone(casino, table, record, **options):
        if record["seq"] == 3 and not intake.batching:
            raise OSError("disk gone")
        return real_append(casino, table, record, **options)

    monkeypatch.setattr(store, "batch", commit_refused(store))
    monkeypatch.setattr(store, "append", append_fails_alone)
    batch = [(topic("3"), message("3", record)) for record in first + [replacing]]
    assert take_batch(intake, batch) == [ACCEPTED, ACCEPTED, REFUSED]
    assert "replaced_by" not in old_key_entry(path, old_kid)
    monkeypatch.undo()
    assert take_batch(intake, [(topic("3"), message("3", replacing))]) == [ACCEPTED]
    assert store.table("3")["key_id"] == new_kid
    entry = old_key_entry(path, old_kid)
    assert (entry["replaced_by"], entry["replaced_at"]) == (new_kid, 3)


def old_key_entry(path, kid):
    [entry] = [k for k in record_auth.read_key_file(path, "3")["keys"] if k["key_id"] == kid]
    return entry


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_batch_closes_at_its_count():
    waiting = list(range(1, 10))
    batch = gather(0, lambda timeout: waiting.pop(0) if waiting else None, count=4,
                   wait_s=1.0, clock=FakeClock())
    assert batch == [0, 1, 2, 3] and waiting == list(range(4, 10))


def test_a_batch_closes_at_its_time():
    clock = FakeClock()
    asked = []

    def one_a_millisecond(timeout):
        asked.append(timeout)
        clock.now += 0.001
        return len(asked)

    batch = gather(0, one_a_millisecond, count=100, wait_s=0.0035, clock=clock)
    assert batch == [0, 1, 2, 3, 4]  # 4 was asked for at 3 ms; at 4 ms the time was up
    assert asked[0] == pytest.approx(0.0035)  # never waits past the batch's time


def test_a_batch_closes_when_nothing_more_comes():
    assert gather("a", lambda timeout: None, count=100, wait_s=1.0, clock=FakeClock()) == ["a"]


# ---- the floor and the broker ----

class Crash(BaseException):
    # The floor's process dying: nothing after it runs, no `except Exception`.
    pass


@pytest.fixture
def mosquitto(floor_dir, tmp_path, need_mosquitto):
    floor_dir.add_table("4")
    port = servers.free_port()
    server = servers.Mosquitto(floor_dir.broker_config(port), port,
                               tmp_path / "mosquitto.log").start()
    yield server
    server.kill()


def waited(condition, what):
    ends = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < ends, what
        time.sleep(0.02)


def floor_on(broker, floor_dir, store):
    floor = Floor(broker.url, read_credentials(floor_dir.credentials(FLOOR_USER)), CASINO,
                  store)
    floor.client.start()
    waited(floor.client.subscribed.is_set, "the floor never subscribed")
    return floor


def publish(broker, floor_dir, made):
    table = Client(broker.url, read_credentials(floor_dir.credentials(topics.user_of("4"))))
    table.start()
    waited(table.connected.is_set, "table 4 never connected")
    for record in made:
        table.publish(topic("4"), message("4", record))  # each PUBACKed by the broker
    table.stop()


def arrived(floor, count):
    # The floor's inbox holds `count` messages (and any reconnection).
    waited(lambda: sum(item is not None for item in list(floor.inbox.queue)) >= count,
           "the broker delivered fewer than %d messages" % count)


def test_a_floor_dying_mid_batch_loses_nothing_it_acknowledged(mosquitto, floor_dir, db_url):
    made = records(10, tag="table 4")
    store = FloorDatabase(db_url)
    floor = floor_on(mosquitto, floor_dir, store)
    acked = []  # at each PUBACK: the records committed, as another reader sees them
    real_ack = floor.client.ack

    def ack(receipt):
        with contextlib.closing(FloorDatabase(db_url)) as reader:
            acked.append(reader.record_count("4"))
        real_ack(receipt)

    floor.client.ack = ack
    publish(mosquitto, floor_dir, made[:3])
    arrived(floor, 3)
    while len(store.records("4")) < 3:
        floor.step()
    assert acked == [3, 3, 3]  # each acknowledged once its batch was committed
    publish(mosquitto, floor_dir, made[3:])
    arrived(floor, 7)
    real_take = floor.intake.take

    def dies_at_record_6(where, payload):
        if json.loads(payload).get("record", {}).get("seq") == 6:
            raise Crash()
        return real_take(where, payload)

    floor.intake.take = dies_at_record_6
    with pytest.raises(Crash):
        while True:
            floor.step()
    floor.client.stop()  # the process gone: its connection with it
    store.close()
    assert acked == [3, 3, 3]  # nothing of the batch it died in was acknowledged
    # The floor again: the broker gives it what it never acknowledged.
    store = FloorDatabase(db_url)
    try:
        floor = floor_on(mosquitto, floor_dir, store)
        waited(lambda: (floor.step(), len(store.records("4")))[1] >= 10,
               "records not redelivered after the floor died")
        for _ in range(10):
            floor.step()  # anything else the broker had for it
        assert store.records("4") == made  # each once, in order, none lost
        assert store.table("4")["duplicates"] == 0  # 1-3 were acknowledged: not sent again
        assert store.refusals() == []
        floor.client.stop()
    finally:
        store.close()
