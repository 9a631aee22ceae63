# The floor page behind its login: a viewer sees every table's tile and
# cannot acknowledge; a supervisor acknowledges, and the acknowledgement is
# recorded with the supervisor's name; the event stream carries the tiles.
import json

import pytest
from chains import CASINO, topic
from floor_data import PASSWORDS, RULES

from uthctl.floor.intake import Intake
from uthctl.floor.page.users import Users


def logged_in(app, name, password=None):
    client = app.test_client()
    reply = client.post("/login", data={"name": name, "password": password or PASSWORDS[name]})
    assert reply.status_code == 302
    return client


def csrf_of(client):
    page = client.get("/").get_data(as_text=True)
    return page.split('data-csrf="')[1].split('"')[0]


def test_nothing_is_shown_without_a_login(floor):
    app, _ = floor
    client = app.test_client()
    assert client.get("/").headers["Location"].endswith("/login")
    assert client.get("/tiles.json").status_code == 401
    assert client.get("/events").status_code == 401
    assert client.post("/alerts/1/ack").status_code == 401


def test_a_wrong_password_is_refused(floor):
    app, _ = floor
    reply = app.test_client().post("/login", data={"name": "sam", "password": "guess-again"})
    assert reply.status_code == 401 and "not known" in reply.get_data(as_text=True)


def test_the_tiles_show_each_table(floor):
    app, _ = floor
    tiles = {t["table"]: t for t in logged_in(app, "vera").get("/tiles.json").json["tiles"]}
    assert tiles["3"]["display"] == "$187.34"
    assert tiles["3"]["pending"] == {"seat": 4, "award": "$187.34", "since": None}
    assert tiles["3"]["records"] == 2 and tiles["3"]["config"] == "A1"
    assert tiles["4"]["link"] == "offline"
    assert [a["kind"] for a in tiles["4"]["alerts"]] == ["offline"]


def test_a_tile_shows_each_rule_sections_dates_and_whether_it_is_past_them(floor):
    app, store = floor
    # Table 4's board has a clock never set: it gives the dates, not a verdict.
    unset = {"date": "2021-01-01", "clock": "unset", "sections": RULES["sections"],
             "expired": None}
    Intake(store, CASINO).take(topic("4", "status"), json.dumps(
        {"table": "4", "status": "online", "board": {"rules": unset}}).encode())
    tiles = {t["table"]: t for t in logged_in(app, "vera").get("/tiles.json").json["tiles"]}
    (section, effective, expires), = RULES["sections"]
    assert tiles["3"]["rules"] == [{"section": section, "effective": effective,
                                    "expires": expires, "expired": True}]
    assert tiles["4"]["rules"] == [{"section": section, "effective": effective,
                                    "expires": expires, "expired": None}]
    assert (tiles["3"]["rules_clock"], tiles["4"]["rules_clock"]) == ("set", "unset")


def test_a_viewers_acknowledgement_is_refused(floor):
    app, store = floor
    client = logged_in(app, "vera")
    alert = store.alerts("4")[0]["id"]
    reply = client.post("/alerts/%d/ack" % alert, headers={"X-CSRF-Token": csrf_of(client)})
    assert reply.status_code == 403
    assert store.alerts("4")[0]["acked_by"] is None


def test_a_supervisor_acknowledges_by_name_once(floor):
    app, store = floor
    client = logged_in(app, "sam")
    alert = store.alerts("4")[0]["id"]
    assert client.post("/alerts/%d/ack" % alert).status_code == 403  # without the page's token
    token = {"X-CSRF-Token": csrf_of(client)}
    assert client.post("/alerts/%d/ack" % alert, headers=token).json == {
        "acknowledged": alert, "by": "sam"}
    assert store.alerts("4")[0]["acked_by"] == "sam"
    assert client.post("/alerts/%d/ack" % alert, headers=token).status_code == 409


def test_the_event_stream_carries_the_tiles(floor):
    app, _ = floor
    reply = logged_in(app, "vera").get("/events")
    assert reply.mimetype == "text/event-stream"
    first = reply.get_data(as_text=True).split("\n\n")[0]
    assert first.startswith("data: ")
    body = json.loads(first[len("data: "):])["html"]
    assert 'id="table-3"' in body and 'id="table-4"' in body


def test_user_passwords_are_stored_hashed(tmp_path):
    users = Users(tmp_path / "users.json")
    users.add("sam", "supervisor", "supervisor-password")
    text = (tmp_path / "users.json").read_text()
    assert "supervisor-password" not in text and "scrypt:" in text
    assert users.check("sam", "supervisor-password") == "supervisor"
    assert users.check("sam", "wrong") is None
    with pytest.raises(ValueError, match="viewer or supervisor"):
        users.add("x", "admin", "long-enough")


def strict_json(text):
    # JSON as a browser's JSON.parse reads it: no NaN, no Infinity.
    def refuse(name):
        raise ValueError("%s is no JSON" % name)
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("sections", [5, True, "653b", {"653b.1": 1}, [None, [1, 2]]])
def test_a_status_of_any_shape_blanks_no_tile(floor, sections):
    # A retained status with {"rules": {"sections": 5}} made /tiles.json and
    # /events answer 500 for every table.
    app, store = floor
    Intake(store, CASINO).take(topic("3", "status"), json.dumps(
        {"table": "3", "status": "online", "board": {"rules": {"sections": sections},
                                                     "state": {"odd": [1]}}}).encode())
    client = logged_in(app, "vera")
    reply = client.get("/tiles.json")
    assert reply.status_code == 200
    tiles = {t["table"]: t for t in strict_json(reply.get_data(as_text=True))["tiles"]}
    assert tiles["3"]["rules"] == [] and tiles["3"]["records"] == 2
    assert tiles["4"]["link"] == "offline"
    first = client.get("/events").get_data(as_text=True).split("\n\n")[0]
    body = strict_json(first[len("data: "):])["html"]
    assert 'id="table-3"' in body and 'id="table-4"' in body


@pytest.mark.parametrize("stored", ["{not json", '{"state": NaN}', "[1, 2]"])
def test_a_tile_that_cannot_be_built_shows_that_table_alone_as_unreadable(floor, stored):
    # A status the floor holds that no page can show (written by an earlier
    # floor, or by hand): table 3's tile says so; table 4's is as ever.
    app, store = floor
    store.set_table(CASINO, "3", board_status=stored)
    client = logged_in(app, "vera")
    reply = client.get("/tiles.json")
    assert reply.status_code == 200
    tiles = {t["table"]: t for t in strict_json(reply.get_data(as_text=True))["tiles"]}
    if stored == "[1, 2]":  # JSON, not an object: read as no status
        assert "unreadable" not in tiles["3"] and tiles["3"]["board_state"] is None
    else:
        assert set(tiles["3"]) == {"table", "unreadable"}
    assert tiles["4"]["link"] == "offline" and "unreadable" not in tiles["4"]


@pytest.mark.parametrize("drbg, shown", [("not_instantiated", True), ("instantiated", False),
                                         (None, False), (7, False)])
def test_a_board_whose_generator_is_not_seeded_says_so_on_its_tile(floor, drbg, shown):
    # status's "drbg" (docs/host-link.md): a board not yet seeded draws its
    # hit values from its own source, and the floor sees it.
    app, store = floor
    board = {"state": "betting"} if drbg is None else {"state": "betting", "drbg": drbg}
    Intake(store, CASINO).take(topic("3", "status"), json.dumps(
        {"table": "3", "status": "online", "board": board}).encode())
    client = logged_in(app, "vera")
    tiles = {t["table"]: t for t in strict_json(client.get("/tiles.json").get_data(
        as_text=True))["tiles"]}
    assert tiles["3"]["generator"] == (drbg if isinstance(drbg, str) else None)
    first = client.get("/events").get_data(as_text=True).split("\n\n")[0]
    body = strict_json(first[len("data: "):])["html"]
    tile = body.split('id="table-3"')[1].split('id="table-4"')[0]
    assert ("NOT SEEDED" in tile) == shown, tile
