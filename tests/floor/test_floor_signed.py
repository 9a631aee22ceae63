# The record key end to end, on the firmware that ships: two virtual boards
# given their tables' keys at the table (the key held, `uthctl provision`
# with the key file `add-table` wrote), their bridges, a real Mosquitto and
# the floor service. Every record the floor stores is its board's, signed;
# the floor audit, each board's head asked live through its bridge, calls
# both tables verified. A record table 3's account forges is refused under a
# `forged` alert while the board's own record of that number joins; the
# newest records deleted with the meters rolled back fail the audit.
import contextlib
import json
import time

import pytest
import servers
from sqlalchemy import delete, update

from floor_demo.virtual_tables import start_floor, stop_process, wait_until
from mystery import chain
from uthctl.analysis import record_auth
from uthctl.cli import main as uthctl
from uthctl.floor import schema
from uthctl.floor.audit import head as audit_head
from uthctl.floor.database import FloorDatabase
from uthctl.floor.page.data import tiles
from uthctl.wire.mqtt import Client, read_credentials

pytestmark = [pytest.mark.board, pytest.mark.usefixtures("micropython")]
CATCH_UP_S = 60.0
ROUNDS = 3
ROUND_CENTS = 3 * 2  # three seats' $1 chips at 2%


def audit(capsys, floor_dir, db_url, *more):
    capsys.readouterr()
    code = uthctl(["floor", "--dir", str(floor_dir.folder), "--db", db_url, "audit", "--json",
                   *more])
    return code, json.loads(capsys.readouterr().out)


def caught_up(store, table, seq):
    # The floor holds the board's records to seq and the meters it read after
    # them: the records alone are not enough, for the meters come in their own
    # message, and an audit of meters behind the log fails ("the log runs past
    # the meter's head"), as it once did here on a loaded machine.
    row = store.table(table) or {}
    meters = json.loads(row["meters"]) if row.get("meters") else {}
    return row.get("last_seq") == seq and meters.get("log_seq") == seq


def forged_next(store, table):
    # Record head + 1 as the chain would take it, its hash its own, paying
    # seat 9 $5,000: what a second client on the table's account can make.
    state = store.table(table)
    return chain.link({"ev": "validated", "seat": 9, "award": 5_000_000_000, "cycle": 1,
                       "employee": "0000", "slip": None}, state["last_seq"] + 1,
                      state["last_hash"])


def test_signed_boards_records_reach_the_floor_verified_and_no_forgery_joins(
        tmp_path, floor_dir, db_url, capsys, monkeypatch, need_mosquitto):
    with contextlib.ExitStack() as stack:
        broker, tables = servers.tables_on_mosquitto(stack, floor_dir, tmp_path,
                                                     (ROUNDS + 2) * ROUND_CENTS)
        key_ids = {table.name: table.provision(floor_dir.key_file(table.name)) for table in tables}
        for table in tables:
            assert key_ids[table.name] == record_auth.newest_key(
                floor_dir.key_file(table.name), table.name)[0]
            table.start_bridge()
        floor = start_floor(floor_dir, broker, db_url, tmp_path / "floor.log")
        stack.callback(stop_process, floor)
        store = FloorDatabase(db_url)
        stack.callback(store.close)
        three, four = tables
        for _ in range(ROUNDS):
            for table in tables:
                assert not table.play_round()
        wait_until(lambda: all(caught_up(store, t.name, t.expected) for t in tables),
                   CATCH_UP_S, "every board's head and meters on the floor")

        # Every record the floor holds is its board's own, signed after its key.
        for table in tables:
            held = store.records(table.name)
            assert [r["seq"] for r in held] == list(range(1, table.expected + 1))
            keys = record_auth.load_keys(floor_dir.key_file(table.name), table.name)
            checked = record_auth.check_records(held, keys)
            assert checked["problems"] == [] and checked["key_id"] == key_ids[table.name]
            # Before the key: the configuration's two, service mode left after
            # it and entered again for the key.
            assert checked["unsigned"] == 4
            assert checked["signed"] == table.expected - 4
        shown = {tile["table"]: tile for tile in tiles(store)}
        assert [shown[t.name]["unsigned"] for t in tables] == [False, False]
        assert [a["kind"] for a in store.alerts() if a["kind"] in ("forged", "refused")] == []
        # Each table's first records came before its key: said once, and the
        # tile no longer says unsigned once the key's records arrived.
        assert sorted(a["table_id"] for a in store.alerts() if a["kind"] == "unsigned") == [
            "3", "4"]
        # ... and cleared by the floor once each key was in force: none stands.
        assert [a for a in store.alerts(open_only=True) if a["kind"] == "unsigned"] == []

        # The audit: every authenticator, and each head asked of its board live.
        code, report = audit(capsys, floor_dir, db_url, "--broker", broker.url)
        assert code == 0 and report["verdict"] == "verified", report["summary"]
        for table in tables:
            assert report["tables"][table.name]["head"]["state"] == "confirmed"

        # A record forged with table 3's account: refused, and the board's own joins.
        forger = Client(broker.url, read_credentials(floor_dir.credentials("table-3"))).start()
        stack.callback(forger.stop)
        three.bridge.kill()  # the forger takes the account's one connection
        three.bridge.wait()
        assert forger.connected.wait(10.0)
        forged = forged_next(store, "3")
        forger.publish("uth/riverside/3/event", json.dumps({"table": "3", "record": forged}))
        wait_until(lambda: any(a["kind"] == "forged" for a in store.alerts("3")), CATCH_UP_S,
                   "the forged alert")
        forger.stop()
        assert store.record_at("3", forged["seq"]) is None
        three.start_bridge()
        three.play_round()
        wait_until(lambda: caught_up(store, "3", three.expected), CATCH_UP_S,
                   "the board's own record past the forgery, and its meters")
        assert store.record_at("3", forged["seq"]) != forged
        forged_alert = [a for a in store.alerts("3") if a["kind"] == "forged"][0]
        assert "table-3" in forged_alert["text"]

        # The newest rounds deleted and the head and meters rolled back: the
        # database alone cannot tell; the board's head, asked live, can.
        stop_process(floor)
        kept = store.records("4")[:-2]
        with store.engine.begin() as db:
            db.execute(delete(schema.records).where(schema.records.c.table_id == "4",
                                                    schema.records.c.seq > kept[-1]["seq"]))
            meters = json.loads(store.table("4")["meters"])
            meters.update(log_seq=kept[-1]["seq"], log_hash=kept[-1]["hash"])
            db.execute(update(schema.tables).where(schema.tables.c.table_id == "4").values(
                last_seq=kept[-1]["seq"], last_hash=kept[-1]["hash"],
                meters=json.dumps(meters)))
        # Every record carries the board's time, so a tail deleted within the
        # audit's grace reads as a floor not caught up yet ("behind"); past
        # it, as what it is. The audit is run as if the grace had passed.
        later = time.time() + audit_head.BEHIND_GRACE_S + 60
        with monkeypatch.context() as patched:
            patched.setattr(time, "time", lambda: later)
            code, report = audit(capsys, floor_dir, db_url, "--broker", broker.url)
        assert code == 1 and report["verdict"] == "FAILED"
        assert report["tables"]["4"]["head"]["state"] == "failed"
        assert report["tables"]["3"]["verdict"] != "FAILED", report["tables"]["3"]["failures"]

        # The floor's records are each board's own export, record for record.
        for table in tables:
            stop_process(table.bridge)
        assert store.records("3") == three.own_export()
        assert store.records("4") == four.own_export()[:len(kept)]
