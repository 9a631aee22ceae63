# What the anchored audit's tests share: a floor's database filled as the
# floor fills it, a table's key file, `uthctl floor audit` run as a user
# runs it, and a table's board (a stand-in on a pty) behind a real bridge on
# a real Mosquitto.
import contextlib
import functools
import json
import threading

import servers
from board_standin import StandInBoard, sign
from chains import CASINO, simulated
from sqlalchemy import delete, update

from uthctl.analysis import record_auth
from uthctl.bridge.table_bridge import Bridge
from uthctl.cli import main as uthctl
from uthctl.floor import schema
from uthctl.wire.mqtt import read_credentials

TABLE = "3"


@functools.lru_cache
def played(rounds, name="A1", seed=3):
    # (records, meters) of a table's log made by the firmware's own engine.
    return simulated(name, rounds, seed)


def key_file(floor_dir, table=TABLE):
    # The table's key file as add-table writes it; the key's hex.
    folder = floor_dir.folder / "keys"
    folder.mkdir(exist_ok=True)
    path = folder / ("%s.json" % table)
    record_auth.add_key(path, table)
    return record_auth.newest_key(path, table)[1]


def fill(store, records, meters, table=TABLE):
    # The records as the floor appends them, and the meters snapshot at their head.
    for record in records:
        store.append(CASINO, table, record)
    store.set_table(CASINO, table, meters=json.dumps(meters, sort_keys=True), meters_at=0.0)


def replace_records(store, records, meters, table=TABLE):
    # The database rewritten by one who holds it: these records and meters
    # in place of the table's, the table's head moved to match.
    with store.engine.begin() as db:
        db.execute(delete(schema.records).where(schema.records.c.table_id == table))
        db.execute(update(schema.tables).where(schema.tables.c.table_id == table).values(
            last_seq=None, last_hash=None, first_seq=None))
    fill(store, records, meters, table)


def run_audit(capsys, floor_dir, db_url, *more):
    # (exit code, the JSON report or None, stderr) of `uthctl floor audit`.
    capsys.readouterr()
    argv = ["floor", "--dir", str(floor_dir.folder)]
    argv += ["--db", db_url] if db_url else []
    code = uthctl(argv + ["audit", "--json", *more])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def signed_play(floor_dir, rounds):
    key = key_file(floor_dir)
    records, meters = played(rounds)
    return key, sign(records, key), meters


@contextlib.contextmanager
def mosquitto(floor_dir, folder):
    port = servers.free_port()
    broker = servers.Mosquitto(floor_dir.broker_config(port), port,
                               folder / "mosquitto.log").start()
    try:
        yield broker
    finally:
        broker.kill()


@contextlib.contextmanager
def bridged_board(floor_dir, broker, folder, records, meters, key_hex, table=TABLE,
                  replay_nonce=None):
    # The table's board (the stand-in) behind `uthctl bridge`'s own Bridge.
    board = StandInBoard(records, meters, key_hex, replay_nonce)
    account = read_credentials(floor_dir.credentials("table-%s" % table))
    bridge = Bridge(board.path, broker.url, account, CASINO, table,
                    folder / ("bridge-%s.json" % table))
    stop = threading.Event()
    thread = threading.Thread(target=bridge.run, args=(stop,), daemon=True)
    thread.start()
    try:
        yield board
    finally:
        stop.set()
        thread.join(10)
        board.close()
