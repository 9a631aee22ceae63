# One host with no Mosquitto: `uthctl floor --embedded-broker PORT` runs the
# amqtt broker itself, on the floor folder's accounts and topic rules, and a
# table's bridge publishes through it; the database ends equal to the
# board's own export.
import contextlib
import types

import pytest
import servers
from floor_data import quiet_seeds

from floor_demo.virtual_tables import Table, stop_process, uthctl_process, wait_until
from uthctl.analysis import record_auth
from uthctl.floor.database import FloorDatabase
from uthctl.floor.page.data import tiles

pytestmark = [pytest.mark.board, pytest.mark.usefixtures("micropython")]


def test_a_table_reaches_the_database_through_the_embedded_broker(tmp_path, floor_dir):
    floor_dir.add_table("3")
    servers.without_keys(floor_dir, ["3"])  # a board with no key: taken by its chain alone
    port = servers.free_port()
    broker = types.SimpleNamespace(url="mqtt://127.0.0.1:%d" % port)
    db_url = "sqlite:///%s" % (tmp_path / "floor.db")
    with contextlib.ExitStack() as stack:
        floor = uthctl_process(["floor", "--dir", str(floor_dir.folder), "--embedded-broker",
                                str(port), "--db", db_url], tmp_path / "floor.log")
        stack.callback(stop_process, floor)
        table = Table("3", tmp_path, floor_dir, broker, quiet_seeds(1, 60)[0])
        stack.callback(table.close)
        table.start_bridge()
        store = FloorDatabase(db_url)
        stack.callback(store.close)
        for _ in range(3):
            table.play_round()
        wait_until(lambda: (store.table("3") or {}).get("last_seq") == table.expected, 60.0,
                   "the floor holds the board's head")
        stop_process(table.bridge)
        assert store.records("3") == table.own_export()
        assert store.refusals() == []


def test_a_table_keyed_at_installation_opens_with_no_unsigned_alert(tmp_path, floor_dir):
    # As `make floor-demo` installs its tables: the key given in service mode
    # before the first configuration, so the board signs every record it makes
    # and the floor's page has nothing unsigned to say of it.
    floor_dir.add_table("3")
    port = servers.free_port()
    broker = types.SimpleNamespace(url="mqtt://127.0.0.1:%d" % port)
    db_url = "sqlite:///%s" % (tmp_path / "floor.db")
    key_file = floor_dir.key_file("3")
    with contextlib.ExitStack() as stack:
        floor = uthctl_process(["floor", "--dir", str(floor_dir.folder), "--embedded-broker",
                                str(port), "--db", db_url], tmp_path / "floor.log")
        stack.callback(stop_process, floor)
        table = Table("3", tmp_path, floor_dir, broker, quiet_seeds(1, 60)[0],
                      key_file=key_file)
        stack.callback(table.close)
        assert table.key_id == record_auth.newest_key(key_file, "3")[0]
        table.start_bridge()
        store = FloorDatabase(db_url)
        stack.callback(store.close)
        table.play_round()
        wait_until(lambda: (store.table("3") or {}).get("last_seq") == table.expected, 60.0,
                   "the floor holds the board's head")
        held = store.records("3")
        # Service mode left after the key, entered and left again for the
        # configuration: records too, signed as every record after the key.
        assert [r["ev"] for r in held] == ["key", "service", "service", "config", "reset",
                                           "service", "round"]
        checked = record_auth.check_records(held, record_auth.load_keys(key_file, "3"))
        assert (checked["problems"], checked["unsigned"], checked["signed"]) == ([], 0, 7)
        assert [a for a in store.alerts("3") if a["kind"] == "unsigned"] == []
        assert [tile["unsigned"] for tile in tiles(store) if tile["table"] == "3"] == [False]
