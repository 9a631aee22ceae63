# The floor page: one tile a table, kept live by server-sent events, behind
# a login. Viewers see; only a supervisor acknowledges an alert, and the
# acknowledgement is recorded with the supervisor's name. Reads the floor's
# database, which `uthctl floor` writes (SQLite in WAL mode lets both run).
# A session stands only while its grounds do: every request (and every tick
# of an event stream) reads the user's role and generation from users.json
# anew, so a demoted, removed or re-passworded user, or one who logged out,
# is out at once. Logins are throttled per name and per address (throttle.py).
import ipaddress
import json
import secrets
import time

from flask import Flask, Response, abort, g, redirect, request, session, url_for

from .page_html import LOGIN, PAGE
from .throttle import Throttle
from .tiles import tiles

PUSH_EVERY_S = 0.5  # how often the event stream looks for a change
NAME_KEPT = 64  # a user's name is no longer; the throttle keeps no more of a guess


def create_app(store, users, secret=None, stream_for_s=None, stopping=None,
               secure_cookie=False, throttle=None):
    # stream_for_s: each event stream ends after that long (None: never);
    # stopping: a threading.Event that ends every stream when set;
    # secure_cookie: the cookie goes over HTTPS only (the page off loopback);
    # throttle: the logins' Throttle (a test's clock in it).
    app = Flask(__name__)
    app.secret_key = secret or secrets.token_bytes(32)
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
                      SESSION_COOKIE_SECURE=secure_cookie, FLOOR_USERS=users)
    throttle = throttle or Throttle()

    def user():
        # The session's user name while its grounds stand, else None (and
        # the session cleared); the user's role now is in g.role.
        if "user" not in g:
            standing = _standing(users, session.get("user"), session.get("generation"))
            g.user, g.role = standing or (None, None)
            if standing is None and session:
                session.clear()
        return g.user

    def needs_login():
        if user() is None:
            abort(401)

    @app.get("/login")
    def login_form():
        return LOGIN.replace("{error}", "")

    @app.post("/login")
    def login():
        name = request.form.get("name", "")
        keys = ("name:" + name[:NAME_KEPT], "address:%s" % request.remote_addr)
        wait = throttle.wait_s(keys)
        if wait > 0:
            return (LOGIN.replace("{error}", "too many wrong passwords: try again in %d s"
                                  % (wait + 1)), 429, {"Retry-After": str(int(wait) + 1)})
        role = users.check(name, request.form.get("password", ""))
        standing = users.standing(name) if role is not None else None
        if standing is None:  # (or removed in between)
            failures = throttle.failed(keys)
            app.logger.warning("floor page: wrong name or password for %r from %s (%d in a "
                               "row)", name[:NAME_KEPT], request.remote_addr, failures)
            return LOGIN.replace("{error}", "name or password not known"), 401
        throttle.succeeded(keys[0])
        session.clear()
        session.update(user=name, generation=standing[1],
                       csrf=secrets.token_urlsafe(16))
        return redirect(url_for("floor"))

    @app.post("/logout")
    def logout():
        if user() is not None:
            users.end_sessions(g.user)  # a copy of the cookie taken before is out too
        session.clear()
        return redirect(url_for("login_form"))

    @app.get("/")
    def floor():
        if user() is None:
            return redirect(url_for("login_form"))
        return (PAGE.replace("{user}", _escape(g.user)).replace("{role}", g.role)
                .replace("{csrf}", session["csrf"]))

    @app.get("/tiles.json")
    def tiles_now():
        needs_login()
        return {"tiles": tiles(store)}

    @app.get("/events")
    def events():
        needs_login()
        name, generation = g.user, session.get("generation")

        def standing():
            return _standing(users, name, generation) is not None

        return Response(_stream(store, stream_for_s, stopping, standing),
                        mimetype="text/event-stream", headers={"Cache-Control": "no-store"})

    @app.post("/alerts/<int:alert_id>/ack")
    def acknowledge(alert_id):
        needs_login()
        if g.role != "supervisor":
            abort(403, "only a supervisor acknowledges alerts")
        if request.headers.get("X-CSRF-Token") != session.get("csrf"):
            abort(403, "the page's token is missing")
        if not store.acknowledge(alert_id, g.user):
            abort(409, "no such alert standing")
        return {"acknowledged": alert_id, "by": g.user}

    return app


def _standing(users, name, generation):
    # (name, role now) when that user is still there under the session's
    # generation, else None.
    now = users.standing(name) if name is not None else None
    if now is None or now[1] != generation:
        return None
    return name, now[0]


def _stream(store, for_s, stopping, standing):
    # The tiles at once, then again at each change; a comment line keeps the
    # connection open between changes (and finds a closed one). It ends when
    # the session's grounds do (standing() false).
    last, started = None, time.monotonic()
    while (for_s is None or time.monotonic() - started < for_s) and not (
            stopping is not None and stopping.is_set()) and standing():
        now = json.dumps(tiles(store), sort_keys=True)
        yield ("data: %s\n\n" % now) if now != last else ": quiet\n\n"
        last = now
        time.sleep(PUSH_EVERY_S)


def _escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def loopback(host):
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server(app, host, port, tls=None):
    # tls: (certfile, keyfile), werkzeug's ssl_context; the page's own HTTPS.
    from werkzeug.serving import make_server

    return make_server(host, port, app, threaded=True, ssl_context=tls)


def serve(app, host, port, tls=None):
    server(app, host, port, tls).serve_forever()
