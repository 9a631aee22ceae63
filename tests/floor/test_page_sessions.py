# Sessions that end (issue 25, point 4): a page session stands only while
# its grounds do. Demoting, removing or re-passwording a user, or logging
# out, ends it at the next request, for every copy of the cookie; wrong
# passwords are throttled per name and per address; the cookie is Secure
# whenever the page is served off loopback, which it does over its own TLS.
import logging
import shutil
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest
from floor_data import PASSWORDS
from servers import free_port
from test_broker_tls import certificates  # noqa: F401  (a fixture: the throwaway CA)

from uthctl.cli import main as uthctl
from uthctl.floor.page import app as page
from uthctl.floor.page.app import create_app
from uthctl.floor.page.throttle import FIRST_LOCK_S, FREE_FAILURES, Throttle


class Clock:
    # The throttle's clock, moved by the test instead of waited for.
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def site(floor):
    # The floor fixture's store and users, in an app whose throttle runs on
    # the test's clock, each event stream 20 s long at most.
    app, store = floor
    users = app.config["FLOOR_USERS"]
    clock = Clock()
    app = create_app(store, users, stream_for_s=20.0, throttle=Throttle(clock))
    return app, store, users, clock


def log_in(app, name, password=None, address="127.0.0.1"):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    reply = client.post("/login", data={"name": name, "password": password or PASSWORDS[name]})
    return client, reply


def logged_in(app, name):
    client, reply = log_in(app, name)
    assert reply.status_code == 302
    return client


def token(client):
    return {"X-CSRF-Token": client.get("/").get_data(as_text=True)
            .split('data-csrf="')[1].split('"')[0]}


def test_a_demoted_supervisors_old_cookie_acknowledges_nothing(site):
    app, store, users, _ = site
    sam = logged_in(app, "sam")
    headers = token(sam)
    users.add("sam", "viewer", PASSWORDS["sam"])  # `add-user sam --role viewer`
    alert = store.alerts("4")[0]["id"]
    assert sam.post("/alerts/%d/ack" % alert, headers=headers).status_code == 401
    assert store.alerts("4")[0]["acked_by"] is None
    again = logged_in(app, "sam")  # a new login has the new role
    assert again.post("/alerts/%d/ack" % alert, headers=token(again)).status_code == 403


def test_a_cookie_copied_before_logout_reads_nothing_after_it(site):
    app, _, _, _ = site
    vera = logged_in(app, "vera")
    copy = app.test_client()
    copy.set_cookie("session", vera.get_cookie("session").value)
    assert copy.get("/tiles.json").status_code == 200
    vera.post("/logout")
    assert copy.get("/tiles.json").status_code == 401
    assert copy.get("/").headers["Location"].endswith("/login")


@pytest.mark.parametrize("change", ["removed", "password changed"])
def test_a_removed_or_repassworded_users_session_ends(site, change):
    app, _, users, _ = site
    vera = logged_in(app, "vera")
    if change == "removed":
        users.remove("vera")
    else:
        users.passwd("vera", "a-new-viewer-password")
    assert vera.get("/tiles.json").status_code == 401


def test_an_open_event_stream_ends_with_its_session(site):
    app, _, users, _ = site
    vera = logged_in(app, "vera")
    reply = vera.get("/events", buffered=False)
    chunks = iter(reply.response)
    assert next(chunks).startswith(b"data: ")
    users.end_sessions("vera")
    # The stream asks at each turn whether its session stands: it ends at
    # the next one, before another chunk. Left to its 20 s it would have sent
    # one a turn (PUSH_EVERY_S), about 40; the count, not a clock, tells.
    rest = list(chunks)
    assert rest == []


def test_the_sixth_wrong_password_in_a_row_is_turned_away_even_when_right(site, caplog):
    app, _, _, clock = site
    with caplog.at_level(logging.WARNING):
        for _ in range(FREE_FAILURES):
            assert log_in(app, "sam", "guess-again")[1].status_code == 401
    logged = [r for r in caplog.records if "wrong name or password for 'sam'" in r.getMessage()]
    assert len(logged) == FREE_FAILURES
    _, reply = log_in(app, "sam")  # the right password, inside the lock
    assert reply.status_code == 429 and int(reply.headers["Retry-After"]) >= FIRST_LOCK_S
    clock.now += FIRST_LOCK_S + 0.1
    assert log_in(app, "sam", "guess-again")[1].status_code == 401  # the 6th failure
    clock.now += FIRST_LOCK_S + 0.1  # the lock has doubled: not over yet
    assert log_in(app, "sam")[1].status_code == 429
    clock.now += FIRST_LOCK_S
    assert log_in(app, "sam")[1].status_code == 302


def test_wrong_passwords_are_throttled_per_address_across_names(site):
    app, _, _, _ = site
    for index in range(FREE_FAILURES):
        assert log_in(app, "name-%d" % index, "guess", "192.0.2.7")[1].status_code == 401
    assert log_in(app, "vera", address="192.0.2.7")[1].status_code == 429
    assert log_in(app, "vera", address="192.0.2.8")[1].status_code == 302


@pytest.mark.parametrize("secure", [False, True])
def test_the_cookie_is_secure_when_asked(site, secure):
    app, store, users, _ = site
    app = create_app(store, users, secure_cookie=secure)
    _, reply = log_in(app, "vera")
    assert ("; Secure" in reply.headers["Set-Cookie"]) == secure


def test_off_loopback_the_page_needs_its_own_tls(floor_dir, capsys):
    status = uthctl(["floor", "--dir", str(floor_dir.folder), "page", "--host", "0.0.0.0"])
    assert status != 0
    assert "--certfile" in capsys.readouterr().err


@pytest.mark.parametrize("host, tls, secure", [
    ("127.0.0.1", False, False), ("0.0.0.0", True, True), ("127.0.0.1", True, True)])
def test_the_page_is_served_with_a_secure_cookie_off_loopback(floor_dir, monkeypatch, host,
                                                              tls, secure):
    served = {}
    monkeypatch.setattr(page, "serve", lambda app, host, port, tls=None: served.update(
        app=app, tls=tls))
    argv = ["floor", "--dir", str(floor_dir.folder), "page", "--host", host]
    if tls:
        argv += ["--certfile", "page.crt", "--keyfile", "page.key"]
    assert uthctl(argv) == 0
    assert served["app"].config["SESSION_COOKIE_SECURE"] == secure
    assert served["tls"] == (("page.crt", "page.key") if tls else None)



class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_args, **_options):
        return None  # the login's 302 is the answer looked at


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl")
def test_the_page_serves_https_of_its_own_with_a_secure_cookie(site, request):
    ca = request.getfixturevalue("certificates")
    _, store, users, _ = site
    port = free_port()
    running = page.server(create_app(store, users, secure_cookie=True), "127.0.0.1", port,
                          (str(ca / "server.crt"), str(ca / "server.key")))
    thread = threading.Thread(target=running.serve_forever)
    thread.start()
    try:
        trusted = ssl.create_default_context(cafile=str(ca / "ca.crt"))
        opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=trusted),
                                             NoRedirect())
        form = urllib.parse.urlencode({"name": "vera", "password": PASSWORDS["vera"]})
        with pytest.raises(urllib.error.HTTPError) as answer:  # the 302, not followed
            opener.open("https://127.0.0.1:%d/login" % port, form.encode(), 10)
        assert answer.value.code == 302 and "; Secure" in answer.value.headers["Set-Cookie"]
    finally:
        running.shutdown()
        thread.join(10)


def test_the_users_commands_list_remove_and_give_new_passwords(floor_dir, monkeypatch, capsys):
    from uthctl.floor.page.users import Users

    folder = str(floor_dir.folder)
    monkeypatch.setenv("UTH_FLOOR_PASSWORD", PASSWORDS["sam"])
    assert uthctl(["floor", "--dir", folder, "add-user", "sam", "--role", "supervisor"]) == 0
    assert "user sam added, role supervisor" in capsys.readouterr().out
    assert uthctl(["floor", "--dir", folder, "users", "list"]) == 0
    assert capsys.readouterr().out.splitlines() == ["sam (supervisor)"]
    monkeypatch.setenv("UTH_FLOOR_PASSWORD", "a-new-supervisor-password")
    assert uthctl(["floor", "--dir", folder, "users", "passwd", "sam"]) == 0
    users = Users(floor_dir.folder / "users.json")
    assert users.check("sam", PASSWORDS["sam"]) is None
    assert users.check("sam", "a-new-supervisor-password") == "supervisor"
    assert uthctl(["floor", "--dir", folder, "users", "remove", "sam"]) == 0
    assert uthctl(["floor", "--dir", folder, "users", "remove", "sam"]) != 0
    assert "no floor page user 'sam'" in capsys.readouterr().err
    assert users.all() == {}
    assert (floor_dir.folder / "users.json").stat().st_mode & 0o077 == 0
    assert sorted(p.name for p in floor_dir.folder.iterdir() if "users" in p.name) == [
        "users.json", "users.json.lock"]  # no temporary file left behind
