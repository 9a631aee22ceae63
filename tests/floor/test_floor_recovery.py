# Virtual tables, each with its bridge, on a real Mosquitto on loopback, and
# the floor service: rounds played while the broker, a bridge and a board
# are killed; after recovery the floor's database holds every board's own
# log export, record for record, once each.
import contextlib
import json
import signal

import paho.mqtt.client as paho
import pytest
import servers
from paho.mqtt.enums import CallbackAPIVersion
from sqlalchemy import update

from floor_demo.virtual_tables import start_floor, stop_process, wait_until
from uthctl.analysis.table_audit import audit
from uthctl.cli import main as uthctl
from uthctl.floor import schema
from uthctl.floor.accounts import FLOOR_USER
from uthctl.floor.database import FloorDatabase
from uthctl.wire.mqtt import read_credentials

pytestmark = [pytest.mark.board, pytest.mark.usefixtures("micropython")]
CATCH_UP_S = 60.0
ROUND_CENTS = 3 * 2  # three seats' $1 chips at 2%


def caught_up(store, tables):
    def check():
        heads = {t.name: (store.table(t.name) or {}).get("last_seq") for t in tables}
        return all(heads[t.name] == t.expected for t in tables)
    return check


def test_the_floor_equals_every_boards_log_after_broker_bridge_and_board_kills(
        tmp_path, floor_dir, db_url, capsys, need_mosquitto):
    with contextlib.ExitStack() as stack:
        # Hit values beyond these rounds: each round is a record.
        broker, tables = servers.tables_on_mosquitto(stack, floor_dir, tmp_path,
                                                     10 * ROUND_CENTS)
        servers.without_keys(floor_dir, [t.name for t in tables])  # boards with no key
        for table in tables:
            table.start_bridge()
        floor = start_floor(floor_dir, broker, db_url, tmp_path / "floor.log")
        stack.callback(stop_process, floor)
        store = FloorDatabase(db_url)
        stack.callback(store.close)
        three, four = tables

        def recovered(what):
            wait_until(caught_up(store, tables), CATCH_UP_S, "the floor holds every board's "
                       "head %s" % what)

        for table in tables:
            table.play_round()
        recovered("at the start")
        broker.kill()  # rounds go on while the floor is cut off
        three.play_round()
        four.play_round()
        broker.start()
        recovered("after the broker's restart")
        three.kill_bridge()  # and while table 3's bridge is down
        three.play_round()
        three.start_bridge()
        recovered("after table 3's bridge restarted")
        four.power_cut()  # table 4's board restarts under its bridge
        four.play_round()
        three.play_round()
        recovered("after table 4's power cut")
        # config, reset, service mode left, rounds; table 4's restart after
        # its power cut a `start`
        assert (three.expected, four.expected) == (3 + 4, 3 + 3 + 1)
        # One account, one connection: the floor stops while its account asks.
        stop_process(floor)
        asked = ask_as_the_floor(floor_dir, broker, three, [
            {"cmd": "config", "mystery": "B2"}, {"cmd": "log", "since": 1}])
        floor = start_floor(floor_dir, broker, db_url, tmp_path / "floor.log")
        stack.callback(stop_process, floor)
        assert "refused the floor's 'config'" in asked
        wait_until(lambda: store.table("3")["duplicates"] >= three.expected, 20.0,
                   "the records resent, each found a duplicate")
        assert [store.table(t.name)["status"] for t in tables] == ["online", "online"]
        three.bridge.send_signal(signal.SIGINT)  # a clean stop: the bridge says offline
        four.bridge.kill()  # no goodbye: the broker's last will says it
        for table in tables:
            table.bridge.wait(10)
        wait_until(lambda: [store.table(t.name)["status"] for t in tables] == ["offline"] * 2,
                   20.0, "both tables offline on the floor")
        for table in tables:
            exported = table.own_export()
            assert [r["seq"] for r in exported] == list(range(1, table.expected + 1))
            assert store.records(table.name) == exported
        assert store.count("records") == sum(t.expected for t in tables)
        assert store.refusals() == []
        audit_against_the_boards(capsys, floor_dir, db_url, store, tables)


def ask_as_the_floor(floor_dir, broker, table, requests):
    # Requests on the table's command topic, sent with the floor's account
    # and its persistent session while the floor service is stopped; what
    # comes back is left unacknowledged (manual acks), so the broker keeps it
    # for the floor. Returns what the table's bridge said about them.
    log = table.folder / ("bridge-%s.log" % table.name)
    answered = log.read_text().count("resent")
    user, password = read_credentials(floor_dir.credentials(FLOOR_USER))
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=user, clean_session=False,
                         protocol=paho.MQTTv311)
    client.manual_ack_set(True)
    client.username_pw_set(user, password)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        for request in requests:
            client.publish("uth/riverside/%s/command" % table.name, json.dumps(request),
                           qos=1).wait_for_publish(10.0)
    finally:
        client.disconnect()
        client.loop_stop()
    wait_until(lambda: log.read_text().count("resent") > answered, 20.0, "the bridge's answer")
    return log.read_text()


def floor_audit(capsys, floor_dir, db_url, *more):
    capsys.readouterr()
    code = uthctl(["floor", "--dir", str(floor_dir.folder), "--db", db_url, "audit", "--json",
                   *more])
    return code, json.loads(capsys.readouterr().out)


def audit_against_the_boards(capsys, floor_dir, db_url, store, tables):
    # `uthctl floor audit` over the database finds nothing wrong in any table
    # and recomputes the accounts `uthctl audit` recomputes from the board's
    # export; it calls no table verified (exit 3): these boards hold no record
    # key and their heads were not asked (test_floor_audit_anchored.py does both).
    chart = floor_dir.folder / "meters.png"
    code, report = floor_audit(capsys, floor_dir, db_url, "--plot", str(chart))
    assert code == 3 and report["verdict"] == "unconfirmed", report["summary"]
    assert [(row["failures"], row["signatures"], row["head"])
            for row in report["summary"]["tables"]] == [
        ([], "unsigned", "head unconfirmed")] * len(tables)
    for table in tables:  # one PNG a table
        assert (floor_dir.folder / ("meters-%s.png" % table.name)).read_bytes()[:4] == \
            b"\x89PNG"
    for table in tables:
        exported = table.own_export()
        state = store.table(table.name)
        own = audit(json.loads(state["board_status"]), json.loads(state["meters"]), exported,
                    [], "the board's export")
        assert own["ok"]
        assert report["tables"][table.name]["accounts"] == own["accounts"]
    # A record changed in the database is found by the audit, on its table alone.
    body = store.records("3")[2]
    body["meter"] = (body.get("meter") or 0) + 10_000  # a cent more on the meter
    with store.engine.begin() as db:
        db.execute(update(schema.records).where(schema.records.c.table_id == "3",
                                                schema.records.c.seq == 3).values(
            body=json.dumps(body)))
    code, report = floor_audit(capsys, floor_dir, db_url)
    assert code == 1
    assert [row["verdict"] for row in report["summary"]["tables"]] == ["FAILED", "unconfirmed"]
    assert "record 3 was altered" in " ".join(report["tables"]["3"]["failures"])
