# The floor's fixtures: a database of each kind the floor takes (SQLite, and
# PostgreSQL when Debian's server is installed) and a Mosquitto broker with
# the floor's accounts.
import contextlib

import pytest
import servers

from uthctl.floor import schema
from uthctl.floor.accounts import Accounts
from uthctl.floor.store import Store, sqlite_url

CASINO = "riverside"


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
    store = Store(server.url)  # the next test starts from no tables
    schema.metadata.drop_all(store.engine)
    store.close()


@pytest.fixture
def store(db_url):
    with contextlib.closing(Store(db_url)) as opened:
        yield opened


@pytest.fixture
def floor_dir(tmp_path):
    why_not = servers.why_no_mosquitto()
    if why_not is not None:
        pytest.skip(why_not)
    accounts = Accounts(tmp_path / "floor")
    accounts.init(CASINO)
    return accounts


@pytest.fixture
def broker(floor_dir, tmp_path):
    # Tables 3 and 4 have accounts; the broker on a free loopback port.
    for table in ("3", "4"):
        floor_dir.add_table(table)
    port = servers.free_port()
    config = floor_dir.broker_config(port)
    server = servers.Mosquitto(config, port, tmp_path / "mosquitto.log").start()
    yield server
    server.kill()
