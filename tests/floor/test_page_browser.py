# The floor page in a real headless browser (Debian's Chromium, driven by
# Playwright from pytest): the login, the tiles drawn from the event
# stream, a change on the floor reaching the page without a reload, the
# acknowledge button only a supervisor has, and the acknowledgement
# recorded with their name.
import json
import shutil
import threading
import time

import pytest
import servers
from chains import CASINO, NO_MONEY, topic
from floor_data import PASSWORDS

from uthctl.floor.intake import Intake
from uthctl.floor.page import PUSH_EVERY_S, create_app

CHROMIUM = shutil.which("chromium")
WAIT_MS = 15_000
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install "
                                "chromium (.ci/run does as root)")


@pytest.fixture
def page_url(floor):
    from werkzeug.serving import make_server

    app, store = floor
    stopping = threading.Event()
    live = create_app(store, app.config["FLOOR_USERS"], stream_for_s=60, stopping=stopping)
    server = make_server("127.0.0.1", servers.free_port(), live, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d" % server.server_port
    stopping.set()
    server.shutdown()
    time.sleep(2 * PUSH_EVERY_S)  # the streams see it before the database goes


@pytest.fixture
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def log_in(browser, url, name):
    page = browser.new_page(viewport={"width": 1000, "height": 500})
    page.goto(url + "/")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORDS[name])
    page.click("button[type=submit]")
    page.wait_for_selector("#table-3", timeout=WAIT_MS)
    return page


def test_a_supervisor_sees_the_tiles_live_and_acknowledges(browser, page_url, floor, tmp_path):
    _, store = floor
    page = log_in(browser, page_url, "sam")
    assert "$187.34" in page.inner_text("#table-3")
    assert "PENDING: seat 4, award $187.34" in page.inner_text("#table-3")
    assert "653b.1: 2021-09-04 to 2024-09-04, EXPIRED" in page.inner_text("#table-3")
    assert "offline since" in page.inner_text("#table-4")
    # The meter moves at the table: the page follows without a reload.
    meters = {"table": "3", "meters": dict(NO_MONEY, log_seq=2,
                                           log_hash=store.table("3")["last_hash"],
                                           display_cents=18800, config="A1", pending=None)}
    Intake(store, CASINO).take(topic("3", "meters"), json.dumps(meters).encode())
    page.wait_for_function("document.querySelector('#table-3').innerText.includes('$188.00')",
                           timeout=WAIT_MS)
    page.screenshot(path=str(tmp_path / "floor-page.png"))
    page.click("#table-4 button.ack")
    page.wait_for_function("!document.querySelector('#table-4 .alert')", timeout=WAIT_MS)
    assert store.alerts("4")[0]["acked_by"] == "sam"


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
    assert "offline since" in page.inner_text("#table-4")


def test_an_unsigned_table_says_so(browser, page_url, floor):
    # The fixture's table 3 has records and no signed one among them.
    page = log_in(browser, page_url, "vera")
    assert "UNSIGNED" in page.inner_text("#table-3")
    assert "UNSIGNED" not in page.inner_text("#table-4")  # no records: nothing to sign
