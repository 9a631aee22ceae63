# The event stream's one builder: every viewer's stream is fed from one
# view built once an interval, so more viewers cost the database nothing
# more; a change reaches a waiting stream at the next build.
import threading

from floor_data import PASSWORDS
from sqlalchemy import event

from uthctl.floor.page import app as page
from uthctl.floor.page.broadcast import Broadcast


def test_thirty_more_viewers_cost_the_database_no_query(floor, monkeypatch):
    app, store = floor
    monkeypatch.setattr(page, "PUSH_EVERY_S", 3600)  # no tick of the builder in the test
    stopping = threading.Event()
    live = page.create_app(store, app.config["FLOOR_USERS"], stopping=stopping)
    queries = []
    event.listen(store.engine, "before_cursor_execute", lambda *_: queries.append(1))

    viewer = live.test_client()
    viewer.post("/login", data={"name": "vera", "password": PASSWORDS["vera"]})
    cookie = viewer.get_cookie("session").value

    def first_event():  # a viewer of its own, on the session's cookie
        client = live.test_client()
        client.set_cookie("session", cookie)
        reply = client.get("/events", buffered=False)
        chunk = next(iter(reply.response))
        reply.close()
        return chunk

    try:
        assert first_event().startswith(b"data: ")
        one_viewer = len(queries)
        assert one_viewer > 0
        for _ in range(30):
            assert first_event().startswith(b"data: ")
        assert len(queries) == one_viewer  # tiles() a viewer made 30 x 5 more
    finally:
        stopping.set()
        live.extensions["floor_broadcast"].join(10)


def test_a_change_reaches_a_waiting_stream_at_the_next_build():
    state = ["before"]
    stopping = threading.Event()
    shared = Broadcast(lambda: state[0], 0.01, stopping)
    try:
        version, view = shared.newer_than(0, 1)
        assert view == "before"
        state[0] = "after"
        assert shared.newer_than(version, 60) == (version + 1, "after")
    finally:
        stopping.set()
        shared.join(10)


def test_a_failed_build_is_said_and_the_last_view_kept():
    said, builds = [], ["first", RuntimeError("the database away"), "third"]

    def build():  # "third" from then on
        made = builds.pop(0) if len(builds) > 1 else builds[0]
        if isinstance(made, Exception):
            raise made
        return made

    stopping = threading.Event()
    shared = Broadcast(build, 0.01, stopping, said.append)
    try:
        version, view = shared.newer_than(0, 1)
        assert view == "first"
        assert shared.newer_than(version, 60)[1] == "third"
        assert said == ["the floor page's view was not built: RuntimeError: the database "
                        "away"]
    finally:
        stopping.set()
        shared.join(10)
