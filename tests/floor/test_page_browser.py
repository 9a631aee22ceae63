# The floor page in a real headless browser (Debian's Chromium, driven by
# Playwright from pytest): the login, the tiles drawn from the event
# stream, a change on the floor reaching the page without a reload, the
# acknowledge button only a supervisor has, and the acknowledgement
# recorded with their name; the floor in mid-shift at a laptop's and a wall
# display's size (the screenshots of docs/floor-page.md); a table's page with
# its meter chart.
import contextlib
import json
import os
import re
import shutil
import threading
import types
from pathlib import Path

import pytest
import servers
from chains import CASINO, NO_MONEY, topic
from floor_data import PASSWORDS
from floor_shift import NOW, ZONE, make_shift, when

from uthctl.floor.intake import Intake
from uthctl.floor.page.app import create_app

CHROMIUM = shutil.which("chromium")
WAIT_MS = 15_000
FULL_DATE = re.compile(r"since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
# FLOOR_SCREENSHOTS=docs writes the two screenshots there (docs/floor-page.md shows them).
SHOTS = os.environ.get("FLOOR_SCREENSHOTS")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install "
                                "chromium (.ci/run does as root)")


def serve(app, stopping):
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", servers.free_port(), app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


@pytest.fixture
def live_page():
    # live_page(app factory's arguments): the page served on loopback; its
    # builder and server end with the test, before the database goes.
    running = []

    def start(store, users, **options):
        stopping = threading.Event()
        app = create_app(store, users, stream_for_s=60, stopping=stopping, **options)
        running.append((serve(app, stopping), stopping, app))
        return "http://127.0.0.1:%d" % running[-1][0].server_port

    yield start
    for server, stopping, app in running:
        stopping.set()
        server.shutdown()
        app.extensions["floor_broadcast"].join(10)


@pytest.fixture
def page_url(floor, live_page):
    app, store = floor
    return live_page(store, app.config["FLOOR_USERS"])


@pytest.fixture(scope="module")
def browser():  # one Chromium for the module's tests, each in a page of its own
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def log_in(browser, url, name, size=(1000, 500), first="#table-3", **options):
    # bypass_csp: Playwright's waits evaluate script text, which the page's
    # Content-Security-Policy (no eval) refuses; the page's own scripts are files.
    page = browser.new_page(viewport={"width": size[0], "height": size[1]}, bypass_csp=True,
                            **options)
    page.goto(url + "/")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORDS[name])
    page.click("button[type=submit]")
    page.wait_for_selector(first, timeout=WAIT_MS)
    page.wait_for_function("document.getElementById('live').textContent === 'live'",
                           timeout=WAIT_MS)
    return page


def test_a_supervisor_sees_the_tiles_live_and_acknowledges(browser, page_url, floor):
    _, store = floor
    page = log_in(browser, page_url, "sam")
    assert "$187.34" in page.inner_text("#table-3")
    assert "PENDING: seat 4, award $187.34" in page.inner_text("#table-3")
    assert "653b.1: 2021-09-04 to 2024-09-04, EXPIRED" in page.inner_text("#table-3")
    assert "OFFLINE" in page.inner_text("#table-4")
    assert FULL_DATE.search(page.inner_text("#table-4"))
    # The meter moves at the table: the page follows without a reload.
    meters = {"table": "3", "meters": dict(NO_MONEY, log_seq=2,
                                           log_hash=store.table("3")["last_hash"],
                                           display_cents=18800, config="A1", pending=None)}
    Intake(store, CASINO).take(topic("3", "meters"), json.dumps(meters).encode())
    page.wait_for_function("document.querySelector('#table-3').innerText.includes('$188.00')",
                           timeout=WAIT_MS)
    page.click("#table-4 button.ack")
    page.wait_for_function("!document.querySelector('#table-4 .alert')", timeout=WAIT_MS)
    assert store.alerts("4")[0]["acked_by"] == "sam"
    assert "acknowledged by sam" in page.inner_text("#history")


def test_a_viewer_has_no_acknowledge_button(browser, page_url, floor):
    page = log_in(browser, page_url, "vera")
    assert "offline" in page.inner_text("#table-4 .alert")
    assert page.query_selector_all("button.ack") == []


def test_an_unreadable_tile_is_drawn_as_such_and_the_others_as_ever(browser, page_url, floor):
    _, store = floor
    store.set_table(CASINO, "3", board_status="{not json")
    page = log_in(browser, page_url, "vera")
    assert "Table 3 \u00b7 unreadable" in page.inner_text("#table-3")
    assert "JSONDecodeError" in page.inner_text("#table-3")
    assert "OFFLINE" in page.inner_text("#table-4")


def test_an_unsigned_table_says_so(browser, page_url, floor):
    # The fixture's table 3 has records and no signed one among them.
    page = log_in(browser, page_url, "vera")
    assert "UNSIGNED" in page.inner_text("#table-3")
    assert "UNSIGNED" not in page.inner_text("#table-4")  # no records: nothing to sign


@pytest.fixture
def shift_store(tmp_path):
    # On SQLite alone: test_page_shift.py reads the same page on both databases.
    from uthctl.floor.database import FloorDatabase, sqlite_url

    store = FloorDatabase(sqlite_url(tmp_path / "floor.db"))
    yield store
    store.close()


@pytest.fixture
def shift_url(shift_store, live_page, tmp_path):
    # floor_shift's floor (a pending hit, an offline table, a standing
    # alert), with five more tables betting, as a pit's podium sees it.
    # (The page, set up after the database, ends before it.)
    from uthctl.floor.page.users import Users

    store = shift_store
    users = Users(tmp_path / "users.json")
    users.add("sam", "supervisor", PASSWORDS["sam"])
    make_shift(store)
    for table, cents in zip("45678", (12_345, 19_020, 10_410, 16_650, 13_300), strict=True):
        store.set_table(CASINO, table, status="online", status_at=NOW - 7200,
                        meters=json.dumps({"config": "A1", "meter": cents * 10_000,
                                           "display_cents": cents, "pending": None}),
                        board_status=json.dumps({"state": "betting"}))
        store.set_table(CASINO, table, state_at=NOW - 600)
    return live_page(store, users, clock=lambda: NOW, keys_dir=tmp_path / "keys", zone=ZONE)


@pytest.mark.parametrize("name, size", [("laptop", (1366, 768)), ("wall", (1920, 1080))])
def test_the_floor_in_mid_shift_at_a_laptops_and_a_wall_displays_size(browser, shift_url,
                                                                       tmp_path, name, size):
    page = log_in(browser, shift_url, "sam", size, first="#table-2")
    assert "HIT PENDING" in page.inner_text("#table-2")
    assert "PENDING: seat 4, award $187.34, since %s" % when(40) in page.inner_text("#table-2")
    assert "OFFLINE" in page.inner_text("#table-3")
    assert "Table 3 \u00b7 offline" in page.inner_text("#alerts")
    # Table 1's bar, as drawn: from the $100.00 reset to the $200.00
    # must-hit-by, its $150.00 meter half of the way (A1, 653b.1(c)(4)).
    fill, track = (page.locator("#table-1 .meter-bar .%s" % part).bounding_box()["width"]
                   for part in ("fill", "track"))
    assert abs(fill / track - 0.5) < 0.01
    assert "$100.00 reset" in page.inner_text("#table-1 .scale")
    assert "$200.00 must-hit-by" in page.inner_text("#table-1 .scale")
    # Every tile and the alerts lie side by side within the window's width.
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1]
    shot = tmp_path / ("floor-%s.png" % name)
    page.screenshot(path=str(shot))
    if SHOTS:
        kept(shot)


def test_a_tables_page_draws_its_meter_over_a_day_and_a_week(browser, shift_url, tmp_path):
    page = log_in(browser, shift_url, "sam", (1366, 768), first="#table-2")
    page.click("#table-1 .name a")
    page.wait_for_function("document.getElementById('chart').dataset.drawn === 'day'",
                           timeout=WAIT_MS)
    assert page.query_selector("#chart canvas") is not None
    assert "by E1042, slip JS-77" in page.inner_text("#hits")
    # The chart runs over the cycle as the tile's bar does: the reset and the
    # must-hit-by drawn as lines, named in its legend.
    legend = page.inner_text("#chart .u-legend")
    assert "reset" in legend and "must-hit-by" in legend
    page.click("button[data-span=week]")
    page.wait_for_function("document.getElementById('chart').dataset.drawn === 'week'",
                           timeout=WAIT_MS)
    page.screenshot(path=str(tmp_path / "floor-table.png"), full_page=True)


def test_the_chart_writes_times_as_the_page_does_in_the_floors_zone(browser, shift_url):
    # A browser in Tokyo: the chart's times are still the floor's, in the
    # page's format (2026-12-03 12:00:03 EST), never the browser's own.
    page = log_in(browser, shift_url, "sam", (1366, 768), first="#table-2",
                  timezone_id="Asia/Tokyo", locale="en-US")
    page.goto(shift_url + "/tables/1")
    page.wait_for_function("document.getElementById('chart').dataset.drawn === 'day'",
                           timeout=WAIT_MS)
    # The chart's points: table 1's records 2, 3, 7 and 8, taken at NOON + seq
    # (floor_shift); the cursor on the first of them.
    box = page.locator("#chart .u-over").bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + box["height"] / 2)
    page.wait_for_function("document.querySelector('#chart .u-legend .u-value')"
                           ".textContent.includes('EST')", timeout=WAIT_MS)
    assert page.inner_text("#chart .u-legend .u-value") == when(2)
    assert "UTC" not in page.inner_text("#table-1") and "EST" in page.inner_text("#table-1")


def test_a_tables_records_read_in_words_and_the_raw_opens_with_a_click(browser, shift_url):
    page = log_in(browser, shift_url, "sam", (1366, 768), first="#table-2")
    page.goto(shift_url + "/tables/1")
    row = page.locator("#records tr", has_text="round 1:")
    # floor_shift's record 3: 100,000 micro-dollars to each of seats 1 and 2.
    assert "round 1: seats 1, 2 contributed $0.10 each, meter $179.90" in row.inner_text()
    assert "179900000" not in row.inner_text()  # the raw record, closed
    row.locator("summary").click()
    assert "meter=179900000" in row.inner_text()


def kept(shot):
    # The screenshot in SHOTS, in 64 colours (a quarter of the bytes; the page is flat).
    from PIL import Image

    Image.open(shot).convert("RGB").quantize(64).save(Path(SHOTS) / shot.name, optimize=True)


def test_the_pages_own_scripts_and_chart_run_under_its_content_security_policy(browser,
                                                                               shift_url):
    # No bypass here: the page's Content-Security-Policy (its own files
    # alone) in force, and nothing it needs refused by it.
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    refused = []
    page.on("console", lambda message: refused.append(message.text)
            if "Content Security Policy" in message.text else None)
    page.goto(shift_url + "/")
    page.fill("input[name=name]", "sam")
    page.fill("input[name=password]", PASSWORDS["sam"])
    page.click("button[type=submit]")
    page.wait_for_selector("#live >> text=live", timeout=WAIT_MS)
    page.goto(shift_url + "/tables/1")
    page.wait_for_selector("#chart canvas", timeout=WAIT_MS)
    page.wait_for_selector("#chart-note >> text=points over the day", timeout=WAIT_MS)
    assert refused == []


@pytest.mark.board
@pytest.mark.usefixtures("micropython")
def test_the_demos_floor_opens_with_no_alert_standing(browser, live_page, floor_dir, tmp_path):
    # The floor `make floor-demo` runs (tools/floor_demo): virtual boards, their
    # bridges and the floor on its embedded broker. Table 3 is keyed at
    # installation, as the demo's are; table 4 as a board in the field may be,
    # configured before it was keyed and keyed since, so its first records are
    # unsigned and raise an `unsigned` alert, which must clear itself once its
    # key is in force. A supervisor's page then has no alert standing.
    from floor_data import quiet_seeds

    from floor_demo.virtual_tables import Table, stop_process, uthctl_process, wait_until
    from uthctl.floor.database import FloorDatabase
    from uthctl.floor.page.users import Users

    for name in ("3", "4"):
        floor_dir.add_table(name)
    port = servers.free_port()
    broker = types.SimpleNamespace(url="mqtt://127.0.0.1:%d" % port)
    db_url = "sqlite:///%s" % (tmp_path / "floor.db")
    seeds = quiet_seeds(2, 60)
    with contextlib.ExitStack() as stack:
        floor = uthctl_process(["floor", "--dir", str(floor_dir.folder), "--embedded-broker",
                                str(port), "--db", db_url], tmp_path / "floor.log")
        stack.callback(stop_process, floor)
        keyed = Table("3", tmp_path, floor_dir, broker, seeds[0],
                      key_file=floor_dir.key_file("3"))
        stack.callback(keyed.close)
        late = Table("4", tmp_path, floor_dir, broker, seeds[1])
        stack.callback(late.close)
        late.play_round()  # unsigned, as its config and reset records are
        late.provision(floor_dir.key_file("4"))  # the port its own: no bridge yet
        for table in (keyed, late):
            table.start_bridge()
            table.play_round()
        store = FloorDatabase(db_url)
        stack.callback(store.close)
        for table in (keyed, late):
            wait_until(lambda t=table: (store.table(t.name) or {}).get("last_seq") == t.expected,
                       60.0, "the floor holds table %s's head" % table.name)
        users = Users(tmp_path / "users.json")
        users.add("sam", "supervisor", PASSWORDS["sam"])
        page = log_in(browser, live_page(store, users), "sam", (1366, 768), first="#table-4")
        assert page.inner_text("#alerts-standing").strip() == "0"
        assert page.locator(".tile.alerting").count() == 0
        assert "UNSIGNED" not in page.inner_text("#table-4").upper()
