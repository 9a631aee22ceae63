# A retained poison message through a real Mosquitto and `uthctl floor` as
# its own process (issue 25): table 3's account leaves "[" * 100000 retained
# on its event topic, and a status no tile could show on its status topic.
# Each once ended the floor at every start; now the floor refuses them,
# stores table 4's records, is stopped and started again, is handed the
# same retained messages, and goes on storing table 4's records.
import contextlib
import json

import servers
from chains import message, records, signed, topic

from floor_demo.virtual_tables import start_floor, stop_process, wait_until
from uthctl.floor.database import FloorDatabase
from uthctl.floor.page.data import tiles
from uthctl.wire.mqtt import Client, read_credentials

WAIT_S = 30.0
POISON = b"[" * 100_000


def connected(broker, floor_dir, table):
    user = "table-%s" % table
    client = Client(broker.url, read_credentials(floor_dir.credentials(user))).start()
    assert client.connected.wait(10.0)
    return client


def test_a_retained_poison_message_stops_no_floor_start(tmp_path, floor_dir, db_url,
                                                        need_mosquitto):
    for table in ("3", "4"):
        floor_dir.add_table(table)
    four = signed(records(2, tag="table 4"), floor_dir.key_file("4"), "4")
    port = servers.free_port()
    broker = servers.Mosquitto(floor_dir.broker_config(port), port,
                               tmp_path / "mosquitto.log").start()
    with contextlib.ExitStack() as stack:
        stack.callback(broker.kill)
        three_client = connected(broker, floor_dir, "3")
        stack.callback(three_client.stop)
        three_client.publish(topic("3"), POISON, retain=True)
        three_client.publish(topic("3", "status"), json.dumps(
            {"table": "3", "status": "online", "board": {"rules": {"sections": 5}}}).encode(),
            retain=True)
        four_client = connected(broker, floor_dir, "4")
        stack.callback(four_client.stop)
        store = FloorDatabase(db_url)
        stack.callback(store.close)
        for start, record in enumerate(four):
            floor = start_floor(floor_dir, broker, db_url, tmp_path / "floor.log")
            stack.callback(stop_process, floor)
            wait_until(lambda n=start: poison_refusals(store) > n, WAIT_S,
                       "the retained poison refused at start %d" % (start + 1))
            four_client.publish(topic("4"), message("4", record))
            wait_until(lambda n=start: len(store.records("4")) == n + 1, WAIT_S,
                       "table 4's record %d stored" % record["seq"])
            assert floor.poll() is None, (tmp_path / "floor.log").read_text()[-2000:]
            stop_process(floor)
        assert store.records("4") == four
        shown = {tile["table"]: tile for tile in tiles(store)}
        assert shown["3"]["rules"] == [] and shown["4"]["records"] == 2
        assert shown["4"]["unsigned"] is False  # the floor process checked its key


def poison_refusals(store):
    return sum("past the floor's 65536" in row["reason"] for row in store.refusals())
