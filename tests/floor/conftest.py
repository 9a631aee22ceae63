# The floor's fixtures: a database of each kind the floor takes (SQLite, and
# PostgreSQL when Debian's server is installed) and a Mosquitto broker with
# the floor's accounts.
import contextlib
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest
import servers
from chains import CASINO, NO_MONEY, message, records, topic
from floor_data import PASSWORDS, RULES

from uthctl.floor import schema
from uthctl.floor.accounts import Accounts
from uthctl.floor.database import FloorDatabase, sqlite_url
from uthctl.floor.intake import Intake
from uthctl.floor.page.app import create_app
from uthctl.floor.page.users import Users


@pytest.fixture(scope="session")
def postgres():
    why_not = servers.why_no_postgres()
    if why_not is not None:
        pytest.skip(why_not)
    server = servers.Postgres().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield sqlite_url(tmp_path / "floor.db")
        return
    server = request.getfixturevalue("postgres")
    yield server.url
    store = FloorDatabase(server.url)  # the next test starts from no tables
    schema.metadata.drop_all(store.engine)
    store.close()


@pytest.fixture
def store(db_url):
    with contextlib.closing(FloorDatabase(db_url)) as opened:
        yield opened


@pytest.fixture
def keys(tmp_path):
    # The floor's folder of key files, private to its owner as the floor's is.
    folder = tmp_path / "keys"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture
def need_mosquitto():
    why_not = servers.why_no_mosquitto()
    if why_not is not None:
        pytest.skip(why_not)


@pytest.fixture
def reachable():
    # A folder Mosquitto's user may pass through (pytest's own, under
    # /tmp/pytest-of-USER, is its owner's alone): Mosquitto started as root
    # drops to its user before it reads the floor's password file and ACL.
    base = Path(tempfile.mkdtemp(prefix="uth-floor-"))
    os.chmod(base, 0o711)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def floor_dir(reachable):
    accounts = Accounts(reachable / "floor")
    accounts.init(CASINO)
    return accounts


@pytest.fixture(params=["mosquitto", "amqtt"])
def broker(request, floor_dir, tmp_path):
    # Tables 3 and 4 have accounts; the broker on a free loopback port:
    # Mosquitto, or the embedded amqtt broker on the same accounts and rules.
    for table in ("3", "4"):
        floor_dir.add_table(table)
    port = servers.free_port()
    if request.param == "amqtt":
        from uthctl.floor.embedded import EmbeddedBroker

        server = EmbeddedBroker(floor_dir, port).start()
        yield server
        server.stop()
        return
    request.getfixturevalue("need_mosquitto")
    config = floor_dir.broker_config(port)
    server = servers.Mosquitto(config, port, tmp_path / "mosquitto.log").start()
    yield server
    server.kill()


@pytest.fixture
def floor(store, tmp_path):
    # The page's app on a floor whose table 3 has a pending hit of $187.34 for
    # seat 4 and its board's rules (RULES), and whose table 4 is offline;
    # users vera (viewer), sam (supervisor).
    users = Users(tmp_path / "users.json")
    users.add("vera", "viewer", PASSWORDS["vera"])
    users.add("sam", "supervisor", PASSWORDS["sam"])
    intake = Intake(store, CASINO)
    for record in records(2):
        intake.take(topic("3"), message("3", record))
    meters = {"table": "3", "meters": dict(NO_MONEY, log_seq=2, log_hash=records(2)[1]["hash"],
                                           display_cents=18734, config="A1",
                                           pending=[4, 187340000, 3, 230])}
    intake.take(topic("3", "meters"), json.dumps(meters).encode())
    status = {"table": "3", "status": "online", "board": {"state": "hit_pending",
                                                         "rules": RULES}}
    intake.take(topic("3", "status"), json.dumps(status).encode())
    intake.take(topic("4", "status"), b'{"table": "4", "status": "offline"}')
    stopping = threading.Event()  # ends the page's builder before the database goes
    yield create_app(store, users, stream_for_s=0.1, stopping=stopping), store
    stopping.set()
