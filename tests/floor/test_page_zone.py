# The floor's time zone: `uthctl floor init --timezone` records it (an
# unknown one refused, nothing made), the host's zone by default; the page
# shows every time in it with its abbreviation, and its day starts at the
# zone's midnight. The times the database holds stay Unix times (UTC).
import datetime
import json
import threading

from chains import CASINO
from floor_data import PASSWORDS
from floor_shift import EST, NOON, NOW, ZONE, _append, texts

from uthctl.cli import main as uthctl
from uthctl.floor.accounts import Accounts
from uthctl.floor.page.app import create_app
from uthctl.floor.page.users import Users

ROUND = {"ev": "round", "round": 1, "contributions": [[1, 500, 100_000]], "meter": 100_100_000}


def test_init_records_the_floors_zone(tmp_path, capsys):
    folder = tmp_path / "floor"
    assert uthctl(["floor", "--dir", str(folder), "init", "--casino", CASINO,
                   "--timezone", ZONE]) == 0
    assert Accounts(folder).settings()["timezone"] == ZONE


def test_init_refuses_an_unknown_zone_and_makes_nothing(tmp_path, capsys):
    folder = tmp_path / "floor"
    assert uthctl(["floor", "--dir", str(folder), "init", "--casino", CASINO,
                   "--timezone", "America/Pittsburgh"]) == 2
    assert "unknown time zone 'America/Pittsburgh'" in capsys.readouterr().err
    assert not folder.exists()


def test_init_takes_the_hosts_zone_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Lisbon")
    Accounts(tmp_path / "floor").init(CASINO)
    assert Accounts(tmp_path / "floor").settings()["timezone"] == "Europe/Lisbon"


def page_of(store, tmp_path, zone):
    users = Users(tmp_path / "users.json")
    users.add("vera", "viewer", PASSWORDS["vera"])
    app = create_app(store, users, stream_for_s=0.1, stopping=threading.Event(),
                     clock=lambda: NOW, zone=zone)
    client = app.test_client()
    client.post("/login", data={"name": "vera", "password": PASSWORDS["vera"]})
    return texts(client.get("/").get_data(as_text=True))[0]


def test_the_days_start_is_the_zones_midnight(store, tmp_path):
    # A round the floor took at 23:30 Eastern the evening before NOW's day:
    # 04:30 UTC, the same UTC day as NOW (18:00 UTC), yet not today on a
    # Pennsylvania floor. One taken at 00:30 Eastern is today's.
    evening = NOON - 12.5 * 3600
    _append(store, "5", [ROUND], evening - 1)  # record 1 taken at `evening`
    _append(store, "6", [ROUND], evening + 3600 - 1)
    for table in ("5", "6"):
        store.set_table(CASINO, table, status="online", status_at=NOON,
                        meters=json.dumps({"config": "A1", "meter": 100_100_000}))
    utc_day = datetime.datetime.fromtimestamp(evening, datetime.timezone.utc).date()
    assert utc_day == datetime.datetime.fromtimestamp(NOW, datetime.timezone.utc).date()
    shown = page_of(store, tmp_path, ZONE)
    assert "Today: 0 rounds" in shown["table-5"]
    assert "Today: 1 round," in shown["table-6"]
    # Its time shown in the zone, named: 13:00:05 EST is NOW.
    at = (datetime.datetime.fromtimestamp(NOW, datetime.timezone.utc) + EST).strftime(
        "%Y-%m-%d %H:%M:%S")
    assert "as of %s EST" % at in shown["totals"]


def test_the_login_page_names_the_casino_and_a_favicon_is_served(store, tmp_path):
    app = create_app(store, Users(tmp_path / "users.json"), stream_for_s=0.1,
                     stopping=threading.Event(), casino="riverside")
    client = app.test_client()
    shown = texts(client.get("/login").get_data(as_text=True))[0]
    assert shown["casino"] == "Riverside floor"
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    assert b"<svg" in icon.get_data()
