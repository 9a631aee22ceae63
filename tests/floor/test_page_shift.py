# The floor page a pit manager runs a shift from, read in the HTML the
# server renders (the event stream carries the same body): each table's
# real state and since when with its date in full, the meter against its
# maximum, the pending and the last hit with who validated it, the day's
# rounds, contributions and hits, the side wagers' hold against par, the
# floor's totals, the alerts standing and those acknowledged, by whom and
# when; and a table's own page. Every expected value comes from the floor
# floor_shift.py writes, not from the page's code.
import html
import json
import re
import threading

import pytest
from floor_data import PASSWORDS
from floor_shift import NOON, NOW, TRIPS_A_EDGE, ZONE, make_shift, texts, when
from sqlalchemy import update

from uthctl.floor import schema
from uthctl.floor.page.app import create_app
from uthctl.floor.page.users import Users


@pytest.fixture
def shift(store, tmp_path):
    users = Users(tmp_path / "users.json")
    users.add("vera", "viewer", PASSWORDS["vera"])
    users.add("sam", "supervisor", PASSWORDS["sam"])
    make_shift(store)
    stopping = threading.Event()
    yield create_app(store, users, stream_for_s=0.1, stopping=stopping, clock=lambda: NOW,
                     keys_dir=tmp_path / "keys", zone=ZONE), store
    stopping.set()


def logged_in(app, name):
    client = app.test_client()
    assert client.post("/login", data={"name": name, "password": PASSWORDS[name]}
                       ).status_code == 302
    return client


def floor_page(app, name="vera"):
    page = logged_in(app, name).get("/").get_data(as_text=True)
    return (*texts(page), page)


def test_each_tile_says_its_real_state_since_a_full_date(shift):
    shown, classes, _ = floor_page(shift[0])
    assert "OFFLINE" in shown["table-3"] and "betting" not in shown["table-3"]
    assert "since %s (58 min)" % when(100) in shown["table-3"]
    assert "state-offline" in classes["table-3"]
    assert "betting" in shown["table-1"] and "since %s (59 min)" % when(50) in shown[
        "table-1"]
    assert "HIT PENDING" in shown["table-2"] and "since %s" % when(40) in shown["table-2"]


def test_a_state_change_moves_its_since_and_a_repeated_state_does_not(store):
    import time

    store.set_table("riverside", "9", board_status=json.dumps({"state": "betting"}))
    first = store.table("9")["state_at"]
    store.set_table("riverside", "9", board_status=json.dumps({"state": "betting"}))
    assert store.table("9")["state_at"] == first
    before = time.time()
    store.set_table("riverside", "9", board_status=json.dumps({"state": "service"}))
    assert store.table("9")["state_at"] >= before


def test_the_meter_is_drawn_from_its_reset_to_its_must_hit_by(shift):
    app, store = shift
    _, _, page = floor_page(app)
    # A1: reset (minimum) $100.00, must hit by $200.00 (653b.1(c)(4)); table
    # 1's meter is $150.00: half the way, 500 thousandths of the bar.
    assert ('aria-valuemin="100000000" aria-valuemax="200000000" '
            'aria-valuenow="150000000"') in page
    assert '<rect class="fill" width="500" height="10"/>' in page
    shown, _, _ = floor_page(app)
    assert "$100.00 reset A1 $200.00 must-hit-by" in shown["table-1"]
    # A meter just reset ($100.12, the issue's) draws a bar barely begun:
    # 0.12 of the 100 dollars' way, 1 thousandth.
    store.set_table("riverside", "1", meters=json.dumps(
        {"config": "A1", "meter": 100_120_000, "display_cents": 10012, "pending": None}))
    _, _, page = floor_page(app)
    assert '<rect class="fill" width="1" height="10"/>' in page


def test_the_pending_hit_and_the_last_hit_with_who_validated_it(shift):
    shown, _, _ = floor_page(shift[0])
    assert "PENDING: seat 4, award $187.34, since %s" % when(40) in shown["table-2"]
    assert ("Last hit: seat 2, $180.00, %s; validated by E1042, slip JS-77" % when(4)
            in shown["table-1"])
    assert "PENDING" not in shown["table-1"]


def test_the_days_rounds_contributions_hits_and_hold_against_par(shift):
    shown, _, _ = floor_page(shift[0])
    # Table 1 today: rounds 1 and 2; $0.10 + $0.10 + $2.00 contributed; one hit.
    assert "Today: 2 rounds, $2.20 contributed, 1 hit" in shown["table-1"]
    # Trips A: $15.00 wagered, $15.00 paid back: a hold of 0 against its par.
    assert "trips/A 3 0.00%% %.2f%%" % (100 * TRIPS_A_EDGE) in shown["table-1"]
    # Table 3's records came yesterday: nothing today.
    assert "Today: 0 rounds, $0.00 contributed, 0 hits" in shown["table-3"]


def test_the_qualifying_wagers_today_and_on_the_boards_meters(shift):
    # 13:69E-1.39A(b)(1). Table 1 today: round 1, seats 1 and 2 at $5.00;
    # round 2, seat 3 at $10.00: 3 qualifying wagers, $20.00 wagered.
    app, store = shift
    store.set_table("riverside", "1", meters=json.dumps(
        {"config": "A1", "meter": 150_000_000, "display_cents": 15000, "pending": None,
         "qualifying_wagers": 412, "wagered": 617_250_000, "contributed": 12_345_000}))
    shown, _, _ = floor_page(app)
    assert ("Qualifying wagers today: 3, $20.00 wagered · on the meters: 412, $617.25 "
            "wagered, $12.345 contributed") in shown["table-1"]
    # Table 3's rounds were yesterday, and its board gives no such meters.
    assert "Qualifying wagers today: 0, $0.00 wagered" in shown["table-3"]
    assert "on the meters" not in shown["table-3"]
    tiles = {t["table"]: t for t in logged_in(app, "vera").get("/tiles.json").json["tiles"]}
    assert tiles["1"]["wagers"] == {"qualifying_wagers": 412, "wagered": "$617.25",
                                    "contributed": "$12.345"}
    assert (tiles["1"]["today"]["qualifying_wagers"], tiles["1"]["today"]["wagered"]) == (
        3, "$20.00")
    assert tiles["3"]["wagers"] is None


def test_what_each_table_is_doing_now(shift):
    shown, _, _ = floor_page(shift[0])
    # NOW is NOON + 3605. Table 1's rounds were taken at NOON + 3 and NOON + 8:
    # the last 59 min 57 s ago, and only it within the hour (from NOON + 5).
    assert "Last round 59 min ago · 1 round in the last hour" in shown["table-1"]
    assert "No round on the floor's records · 0 rounds in the last hour" in shown["table-3"]


def test_a_tables_page_has_its_days_contributions_and_hits_by_seat(shift):
    page = logged_in(shift[0], "vera").get("/tables/1").get_data(as_text=True)
    shown, _ = texts(page)
    # floor_shift's table 1 today: round 1, seats 1 and 2 $0.10 each; round
    # 2, seat 3 $2.00; the hit to seat 2.
    assert shown["seats"] == ("Today by seat seat rounds contributed hits 1 1 $0.10 0 "
                              "2 1 $0.10 1 3 1 $2.00 0")


def test_a_tables_activity_follows_the_rounds_as_they_come(store):
    from floor_shift import _append

    from mystery import chain
    from uthctl.floor.page.data import PageData

    clock = [NOON]
    data = PageData(store, clock=lambda: clock[0])
    rounds = [{"ev": "round", "round": n, "contributions": [], "meter": 100_000_000}
              for n in range(1, 4)]
    _append(store, "5", rounds[:1], NOON - 1)  # taken at NOON
    store.set_table("riverside", "5", status="online", status_at=NOON)

    def seen():
        tile = data.build()["tiles"][0]
        return tile["last_round"], tile["rounds_hour"]

    assert seen() == (NOON, 1)
    prev = store.table("5")["last_hash"]
    for n, at in ((2, NOON + 1800), (3, NOON + 3000)):
        record = chain.link(dict(rounds[n - 1]), n, prev)
        store.append("riverside", "5", record)
        prev = record["hash"]
        with store.engine.begin() as db:
            db.execute(update(schema.records).where(schema.records.c.table_id == "5",
                                                    schema.records.c.seq == n).values(
                received_at=at))
    clock[0] = NOON + 3000
    assert seen() == (NOON + 3000, 3)
    clock[0] = NOON + 3700  # the first round is past the hour now
    assert seen() == (NOON + 3000, 2)
    clock[0] = NOON + 9000
    assert seen() == (NOON + 3000, 0)


def test_the_floors_totals(shift):
    shown, _, _ = floor_page(shift[0])
    assert shown["liability"] == "$437.34"  # 150.00 + 187.34 + 100.00
    assert (shown["online"], shown["offline"], shown["pending"],
            shown["alerts-standing"]) == ("2", "1", "1", "1")


def test_alerts_standing_and_the_acknowledged_with_who_and_when(shift):
    shown, _, page = floor_page(shift[0], "sam")
    assert "Table 3 · offline" in shown["alerts"].split("Acknowledged")[0]
    assert ("Table 1 · gap records 4-6 missing: asked the table again raised %s; "
            "acknowledged by sam at %s" % (when(10), when(30))) in shown["history"]
    assert page.count('class="ack"') == 2  # on the list and on table 3's tile
    assert 'class="ack"' not in floor_page(shift[0], "vera")[2]


def test_an_alerts_text_is_shown_once_its_tile_links_to_it(shift):
    app, store = shift
    long_text = "table 3 is unsigned: its records carry no authenticator, at some length"
    store.raise_alert("3", "unsigned", long_text)
    shown, _, page = floor_page(app)
    assert page.count("carry no authenticator") == 1
    assert "carry no authenticator" in shown["alerts"]
    alert = [a for a in store.alerts("3") if a["kind"] == "unsigned"][0]
    assert 'href="#alert-%d"' % alert["id"] in page and 'id="alert-%d"' % alert["id"] in page
    assert "unsigned alert since" in shown["table-3"]


def test_no_empty_numbered_list_when_nothing_was_acknowledged(store, tmp_path):
    users = Users(tmp_path / "users.json")
    users.add("vera", "viewer", PASSWORDS["vera"])
    store.set_table("riverside", "3", status="online", status_at=NOON)
    app = create_app(store, users, stream_for_s=0.1, stopping=threading.Event(),
                     clock=lambda: NOW)
    shown, _, page = floor_page(app)
    assert "<ol" not in page and "<li>" not in page and "<li " not in page
    assert shown["history"] == "none yet"


def test_an_outage_that_is_over_says_when_it_came_back(shift):
    app, store = shift
    # Table 3 went offline at NOON + 100 (floor_shift); its bridge says
    # online again at NOON + 130.
    store.set_table("riverside", "3", status="online", status_at=NOON + 130)
    shown, classes, _ = floor_page(app)
    assert "OFFLINE" not in shown["table-3"]
    assert "offline %s to %s, back" % (when(100), when(130)) in shown["table-3"]
    assert "alerting" not in classes["table-3"]  # no red: the table is back
    assert "back %s" % when(130) in shown["alerts"]
    # Gone again: the same alert stands as an outage once more.
    store.set_table("riverside", "3", status="offline", status_at=NOON + 160)
    shown, classes, _ = floor_page(app)
    assert "back" not in shown["table-3"] and "alerting" in classes["table-3"]


def test_an_acknowledged_alert_moves_to_the_history(shift):
    app, store = shift
    client = logged_in(app, "sam")
    csrf = client.get("/").get_data(as_text=True).split('data-csrf="')[1].split('"')[0]
    alert = store.alerts("3")[0]["id"]
    assert client.post("/alerts/%d/ack" % alert,
                       headers={"X-CSRF-Token": csrf}).status_code == 200
    shown, _ = texts(client.get("/").get_data(as_text=True))
    assert "offline" not in shown["alerts"].split("Acknowledged")[0]
    assert "Table 3 · offline" in shown["history"] and "acknowledged by sam" in shown[
        "history"]


def test_what_a_table_sends_is_text_never_markup(shift):
    app, store = shift
    store.raise_alert("1", "fault", "<script>alert(1)</script>")
    page = logged_in(app, "vera").get("/").get_data(as_text=True)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_event_stream_carries_the_same_body(shift):
    client = logged_in(shift[0], "vera")
    first = client.get("/events").get_data(as_text=True).split("\n\n")[0]
    shown, _ = texts(json.loads(first[len("data: "):])["html"])
    assert "PENDING: seat 4, award $187.34" in shown["table-2"]


def test_a_tables_page_has_its_records_paged_hits_rules_and_verdict(shift):
    client = logged_in(shift[0], "vera")
    page = client.get("/tables/1").get_data(as_text=True)
    shown, _ = texts(page)
    assert "$180.00" in shown["hits"] and "by E1042, slip JS-77, %s" % when(5) in shown["hits"]
    assert "653b.1: in force 2025-09-04 to 2027-09-04" in shown["rules"]
    # Table 1's records are not the floor's own checks' (made up for the page):
    # the audit's verdict is shown, whatever it is, and it is no pass.
    assert "FAILS" in shown["verified"] and "unsigned" in shown["verified"]
    assert [int(s) for s in _seqs(page)] == list(range(9, 0, -1))
    assert client.get("/tables/nine").status_code == 404


def _rows(page):
    # {seq: the row's text} of a table page's records.
    body = page.split('<section id="records">')[1].split("</table>")[0]
    return {int(row.split("</td>")[0]): " ".join(html.unescape(re.sub("<[^>]+>", " ", row)
                                                               ).split())
            for row in body.split("<tr><td>")[1:]}


def test_a_tables_records_read_in_words_with_the_raw_a_click_away(shift):
    page = logged_in(shift[0], "vera").get("/tables/1").get_data(as_text=True)
    rows = _rows(page)
    # floor_shift's table 1, in dollars: contributions of 100,000 micro-dollars
    # are $0.10, a meter of 179,900,000 is $179.90; trips nets in cents.
    assert rows[3].startswith("3 round 1: seats 1, 2 contributed $0.10 each, meter $179.90")
    assert rows[8].startswith("8 round 2: seat 3 contributed $2.00, meter $150.00")
    assert rows[2].startswith("2 cycle 1 reset at $100.00 (configuration A1)")
    assert rows[4].startswith("4 HIT: seat 2 awarded $180.00 (cycle 1, round 1; hit value "
                              "$179.00 revealed)")
    assert rows[5].startswith("5 hit of $180.00 to seat 2 validated by E1042, slip JS-77")
    assert rows[9].startswith("9 round settled: seat 1 -$5.00, seat 2 +$10.00, seat 3 -$5.00")
    # The raw record stays one click away (a closed <details>).
    assert "raw contributions=[[1, 500, 100000], [2, 500, 100000]], meter=179900000" in rows[3]
    assert page.count('<details class="raw">') == 9


def test_a_record_shows_the_boards_time_and_when_the_floor_took_it(shift):
    app, store = shift
    from floor_shift import TABLE_2, _append

    # A hit the board made at NOON - 300 by its clock, resent after an
    # outage and taken by the floor at NOON + 4.
    late = [dict(r, time=int(NOON - 300)) if r["ev"] == "hit" else r for r in TABLE_2]
    _append(store, "7", late, NOON)
    rows = _rows(logged_in(app, "vera").get("/tables/7").get_data(as_text=True))
    assert rows[4].endswith("%s %s" % (when(-300), when(4)))
    assert rows[3].endswith("— %s" % when(3))  # a record with no time of the board's


def test_a_tables_records_go_back_a_page_at_a_time(shift, monkeypatch):
    from uthctl.floor.page import table as table_page

    monkeypatch.setattr(table_page, "PAGE", 4)
    client = logged_in(shift[0], "vera")
    first = client.get("/tables/1").get_data(as_text=True)
    assert 'href="?before=6"' in first
    older = client.get("/tables/1?before=6").get_data(as_text=True)
    assert [int(s) for s in _seqs(first)] == [9, 8, 7, 6]
    assert [int(s) for s in _seqs(older)] == [5, 4, 3, 2]


def _seqs(page):
    body = page.split('<section id="records">')[1]
    return [cell.split("</td>")[0] for cell in body.split("<tr><td>")[1:]]


# Table 1's records that state the meter: 2 (reset), 3 (round), 7 (reset), 8 (round).
@pytest.mark.parametrize("span", ["day", "week"])
def test_the_meter_chart_points(shift, span):
    points = [(2, 100.0), (3, 179.9), (7, 100.0), (8, 150.0)]
    client = logged_in(shift[0], "vera")
    chart = client.get("/tables/1/meter.json?span=%s" % span).json
    assert chart["t"] == [NOON + seq for seq, _ in points]
    assert chart["dollars"] == [dollars for _, dollars in points]
    assert client.get("/tables/1/meter.json?span=year").status_code == 400


def test_a_database_made_before_state_at_is_upgraded_rows_kept(db_url):
    from sqlalchemy import Column, MetaData, Table, insert

    from uthctl.floor import schema
    from uthctl.floor.database import FloorDatabase, engine_for

    old = MetaData()  # `tables` as the floor made it before the page said "since"
    Table("tables", old, *[Column(c.name, c.type, primary_key=c.primary_key,
                                  nullable=c.nullable, default=c.default)
                           for c in schema.tables.columns if c.name != "state_at"])
    engine = engine_for(db_url)
    old.create_all(engine)
    with engine.begin() as db:
        db.execute(insert(old.tables["tables"]).values(table_id="3", casino="riverside",
                                                       internal=0))
    engine.dispose()
    store = FloorDatabase(db_url)
    try:
        assert (store.table("3")["casino"], store.table("3")["state_at"]) == ("riverside", None)
        store.set_table("riverside", "3", board_status=json.dumps({"state": "service"}))
        assert store.table("3")["state_at"] is not None
    finally:
        store.close()


def test_every_template_and_static_file_ships_with_an_installed_uthctl():
    import tomllib
    from pathlib import Path, PurePosixPath

    import uthctl.floor.page

    folder = Path(uthctl.floor.page.__file__).parent
    config = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["uthctl.floor.page"]
    files = [PurePosixPath(p.relative_to(folder).as_posix()) for top in ("templates", "static")
             for p in (folder / top).rglob("*") if p.is_file()]
    # (a pattern matches a path of as many parts, as setuptools' globs do)
    assert files and [f for f in files if not any(
        len(f.parts) == len(PurePosixPath(pattern).parts) and f.match(pattern)
        for pattern in patterns)] == []


def test_the_first_record_taken_since_a_time_is_found_by_halving(shift):
    _, store = shift
    # Table 1's records 1-9 were taken at NOON + 1 ... NOON + 9.
    assert [store.first_seq_since("1", NOON + offset) for offset in (-5, 1, 4.5, 9, 9.5)] == [
        1, 1, 5, 9, 10]
    assert [seq for seq, _, _ in store.records_received_since("1", NOON + 4.5)] == [
        5, 6, 7, 8, 9]
    assert store.first_seq_since("no such table", NOON) == 0


def test_the_liability_keeps_a_meters_fraction_of_a_cent(shift):
    app, store = shift
    # A contribution of 150 cents at 150 basis points is 22,500 micro-dollars: 2.25 cents.
    store.set_table("riverside", "9", status="online", status_at=NOON,
                    meters=json.dumps({"config": "A1", "meter": 22_500, "display_cents": 2}))
    shown, _, _ = floor_page(app)
    assert shown["liability"] == "$437.3625"  # 150.00 + 187.34 + 100.00 + 0.0225
