# The intake under a fuzzer (issue 25): 10,000 messages mutated from table
# 3's real ones (fuzz_messages.py) on every topic of table 3's account,
# through the floor's own loop (Floor.step), interleaved with table 3's and
# table 4's genuine signed records. At the end the floor still runs, every
# genuine record is stored and nothing else is, the page has answered
# throughout, and no message needed the catch-all: each was refused for
# what it was. Seeded, on SQLite and on PostgreSQL; and again with 3,000
# messages, the floor's loop taking 40 waiting at a time in one transaction
# (group commit, intake_batch.py).
import json
import random
import time

import pytest
from chains import CASINO, meters_message, signed, simulated, topic
from floor_data import PASSWORDS, RULES
from fuzz_messages import Fuzzer

from mystery import recordkey
from uthctl.floor.intake import INTERNAL, REFUSED
from uthctl.floor.page.app import create_app
from uthctl.floor.page.users import Users
from uthctl.floor.service import Floor
from uthctl.private_file import write_private

SEED = 20261203
FUZZED = 10_000
FUZZED_BATCHED = 3_000  # in batches of BATCHED messages
BATCHED = 40
PAGE_EVERY = 500  # messages between two looks at the page


def genuine_table(keys, table, seed):
    # A board's log (the firmware's engine) and its meters, signed with a key
    # drawn from the seed too, so that a run is repeated byte for byte.
    key = random.Random(seed).randbytes(recordkey.KEY_BYTES)
    entry = {"key_id": recordkey.key_id(key), "key": key.hex(), "made": 0}
    write_private(keys / ("%s.json" % table), json.dumps({"table": table, "keys": [entry]}))
    log, meters = simulated("B1", rounds=300, seed=seed)
    log = signed(log, keys / ("%s.json" % table), table)
    return log, meters


def record_message(table, record):
    return json.dumps({"table": table, "record": record}).encode()


def originals(log, meters):
    # Table 3's messages of every kind, for the fuzzer to start from.
    made = [(topic("3"), record_message("3", record)) for record in log[::40]]
    made += [(topic("3", "meters"), meters_message("3", meters)),
             (topic("3", "status"), json.dumps({"table": "3", "status": "online", "board": {
                 "state": "betting", "rules": RULES}}).encode()),
             (topic("3", "status"), b'{"table": "3", "status": "offline"}'),
             (topic("3"), b'{"table": "3", "event": {"ev": "started", "version": "1.0"}}'),
             (topic("3"), b'{"table": "3", "event": {"ev": "fault", "reason": "I2C 0x21"}}'),
             (topic("3", "command"), b'{"cmd": "log", "since": 1}')]
    return made


def page_answers(client):
    # /tiles.json and the event stream's first tiles, as JSON a browser parses.
    reply = client.get("/tiles.json")
    assert reply.status_code == 200
    tiles = json.loads(reply.get_data(as_text=True), parse_constant=_no_constant)["tiles"]
    four = [tile for tile in tiles if tile["table"] == "4"]
    assert not four or "unreadable" not in four[0]
    stream = client.get("/events", buffered=False)  # its first event, not its pauses
    assert stream.status_code == 200
    first = next(iter(stream.response)).decode()
    stream.close()
    event = json.loads(first[len("data: "):], parse_constant=_no_constant)
    assert set(event) == {"html"}  # the view rendered once for every viewer of the role
    for tile in tiles:  # each table of the JSON view on the streamed page too
        assert 'href="/tables/%s"' % tile["table"] in event["html"]


def _no_constant(name):
    raise ValueError("%s in the page's JSON" % name)


@pytest.fixture
def page(store, tmp_path):
    users = Users(tmp_path / "users.json")
    users.add("vera", "viewer", PASSWORDS["vera"])
    client = create_app(store, users, stream_for_s=0.01).test_client()
    client.post("/login", data={"name": "vera", "password": PASSWORDS["vera"]})
    return client


def test_ten_thousand_fuzzed_messages_stop_nothing_and_store_nothing_false(
        store, tmp_path, page, capsys):
    fuzz(store, tmp_path, page, capsys, FUZZED, per_step=1)


def test_fuzzed_messages_in_batches_stop_nothing_and_store_nothing_false(
        store, tmp_path, page, capsys):
    # The floor's loop taking BATCHED messages waiting together in one
    # transaction (intake_batch.py): a refusal inside a batch keeps its
    # neighbours, and nothing needs the batch rolled back.
    fuzz(store, tmp_path, page, capsys, FUZZED_BATCHED, per_step=BATCHED)


def fuzz(store, tmp_path, page, capsys, fuzzed, per_step):
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    three, three_meters = genuine_table(keys, "3", seed=7)
    four, _ = genuine_table(keys, "4", seed=8)
    rng = random.Random(SEED)
    fuzzer = Fuzzer(rng)
    bases = originals(three, three_meters)
    floor = Floor("mqtt://127.0.0.1:1", ("floor", "unused"), CASINO, store, keys=keys)
    honest = [(topic("3"), record_message("3", r)) for r in three]
    honest_four = [(topic("4"), record_message("4", r)) for r in four]
    started, sent = time.monotonic(), 0

    def take(item):
        floor.inbox.put(item)
        if floor.inbox.qsize() >= per_step:
            while not floor.inbox.empty():
                floor.step()

    take(honest.pop(0))  # table 3's record 1 first: its log starts at 1
    while sent < fuzzed or honest or honest_four:
        if honest and rng.random() < 0.03:
            take(honest.pop(0))
        elif honest_four and rng.random() < 0.03:
            take(honest_four.pop(0))
        elif sent < fuzzed:
            where, payload = rng.choice(bases)
            take((where, fuzzer.mutate(payload)))
            sent += 1
            if sent % PAGE_EVERY == 0:
                page_answers(page)
        else:
            take((honest or honest_four).pop(0))
    while not floor.inbox.empty():
        floor.step()
    page_answers(page)
    assert store.records("3") == three and store.records("4") == four
    counts = floor.intake.counts
    assert counts[INTERNAL] == 0, [r["reason"] for r in store.refusals()
                                   if r["reason"].startswith("internal")][:5]
    assert counts[REFUSED] >= fuzzed // 2
    with capsys.disabled():
        print("\nfuzz %s: %d messages in %.1f s: %s" % (
            store.engine.dialect.name, sent + len(three) + len(four),
            time.monotonic() - started, counts))
