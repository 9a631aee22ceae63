# The floor page: the floor's totals, its alerts and one tile a table, kept
# live by server-sent events, and a page for each table; behind a login.
# Rendered by Flask's Jinja2 templates (templates/, autoescaped: nothing a
# table sends is taken as markup). Viewers see; only a supervisor
# acknowledges an alert, and the acknowledgement is recorded with the
# supervisor's name. Reads the floor's database, which `uthctl floor`
# writes (SQLite in WAL mode lets both run).
# A session stands only while its grounds do: every request (and every tick
# of an event stream) reads the user's role and generation from users.json
# anew, so a demoted, removed or re-passworded user, or one who logged out,
# is out at once. Logins are throttled per name and per address (throttle.py).
import ipaddress
import json
import secrets
import threading
import time

from flask import Flask, Response, abort, g, redirect, render_template, request, session, url_for

from .. import zone as zones
from . import table as table_page
from . import text as page_text
from .broadcast import Broadcast
from .data import PageData
from .throttle import Throttle

PUSH_EVERY_S = 0.5  # how often the floor's view is built for every event stream
NAME_KEPT = 64  # a user's name is no longer; the throttle keeps no more of a guess


def create_app(store, users, secret=None, stream_for_s=None, stopping=None,
               secure_cookie=False, throttle=None, keys_dir=None, clock=None, zone=None,
               casino=None):
    """The floor page's Flask app over the floor's database and page users."""
    # stream_for_s: each event stream ends after that long (None: never);
    # stopping: a threading.Event that ends every stream when set;
    # secure_cookie: the cookie goes over HTTPS only (the page off loopback);
    # throttle: the logins' Throttle (a test's clock in it); keys_dir: the
    # tables' record key files, for a table page's authenticators (None:
    # not checked); clock: the page's time.time (a test's); zone: the
    # floor's time zone by its IANA name (None: the host's); casino: its
    # name, on the login page and every page's head.
    app = Flask(__name__)
    app.secret_key = secret or secrets.token_bytes(32)
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
                      SESSION_COOKIE_SECURE=secure_cookie, FLOOR_USERS=users)
    zone = zones.named(zone or zones.host_zone_name())
    page_text.install(app.jinja_env, zone)
    app.jinja_env.globals.update(casino_title=casino.title() if casino else "Casino")
    stopping = stopping or threading.Event()
    data = PageData(store, clock or time.time, zone)
    broadcast = Broadcast(lambda: _rendered(app, data), PUSH_EVERY_S, stopping,
                          app.logger.error)
    app.extensions["floor_broadcast"] = broadcast
    app.after_request(_no_foreign_content)
    _login_routes(app, users, throttle or Throttle())
    _floor_routes(app, store, users, data, broadcast, stream_for_s, stopping)
    _table_routes(app, store, data, keys_dir)
    return app


def _rendered(app, data):
    # The floor's body as each role sees it (only a supervisor's has the
    # Acknowledge buttons), from one build.
    view = data.build()
    return {role: app.jinja_env.get_template("floor_body.html").render(
        view=view, supervisor=role == "supervisor") for role in ("viewer", "supervisor")}


def _no_foreign_content(reply):
    # Scripts, styles and the chart come from the page's own static files.
    reply.headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
    reply.headers["X-Content-Type-Options"] = "nosniff"
    return reply


def _user(users):
    # The session's user name while its grounds stand, else None (and the
    # session cleared); the user's role now is in g.role.
    if "user" not in g:
        standing = _standing(users, session.get("user"), session.get("generation"))
        g.user, g.role = standing or (None, None)
        if standing is None and session:
            session.clear()
    return g.user


def _needs_login(users):
    if _user(users) is None:
        abort(401)


def _login_routes(app, users, throttle):
    @app.get("/favicon.ico")
    def favicon():
        # Asked by every browser whatever the page's <link rel="icon"> says.
        return app.send_static_file("favicon.svg")

    @app.get("/login")
    def login_form():
        return render_template("login.html", error=None)

    @app.post("/login")
    def login():
        name = request.form.get("name", "")
        keys = ("name:" + name[:NAME_KEPT], "address:%s" % request.remote_addr)
        wait = throttle.wait_s(keys)
        if wait > 0:
            return (render_template("login.html", error="too many wrong passwords: try again "
                                    "in %d s" % (wait + 1)),
                    429, {"Retry-After": str(int(wait) + 1)})
        role = users.check(name, request.form.get("password", ""))
        standing = users.standing(name) if role is not None else None
        if standing is None:  # (or removed in between)
            failures = throttle.failed(keys)
            app.logger.warning("floor page: wrong name or password for %r from %s (%d in a "
                               "row)", name[:NAME_KEPT], request.remote_addr, failures)
            return render_template("login.html", error="name or password not known"), 401
        throttle.succeeded(keys[0])
        session.clear()
        session.update(user=name, generation=standing[1],
                       csrf=secrets.token_urlsafe(16))
        return redirect(url_for("floor"))

    @app.post("/logout")
    def logout():
        if _user(users) is not None:
            users.end_sessions(g.user)  # a copy of the cookie taken before is out too
        session.clear()
        return redirect(url_for("login_form"))


def _floor_routes(app, store, users, data, broadcast, stream_for_s, stopping):
    @app.get("/")
    def floor():
        if _user(users) is None:
            return redirect(url_for("login_form"))
        return render_template("floor.html", user=g.user, role=g.role, csrf=session["csrf"],
                               view=data.build(), supervisor=g.role == "supervisor")

    @app.get("/tiles.json")
    def tiles_now():
        _needs_login(users)
        view = data.build()
        return {"tiles": view["tiles"], "totals": view["totals"]}

    @app.get("/events")
    def events():
        _needs_login(users)
        name, generation, role = g.user, session.get("generation"), g.role

        def standing():
            return _standing(users, name, generation) is not None

        return Response(_stream(broadcast, role, stream_for_s, stopping, standing),
                        mimetype="text/event-stream", headers={"Cache-Control": "no-store"})

    @app.post("/alerts/<int:alert_id>/ack")
    def acknowledge(alert_id):
        _needs_login(users)
        if g.role != "supervisor":
            abort(403, "only a supervisor acknowledges alerts")
        if request.headers.get("X-CSRF-Token") != session.get("csrf"):
            abort(403, "the page's token is missing")
        if not store.acknowledge(alert_id, g.user):
            abort(409, "no such alert standing")
        return {"acknowledged": alert_id, "by": g.user}


def _table_routes(app, store, data, keys_dir):
    users = app.config["FLOOR_USERS"]

    @app.get("/tables/<table_id>")
    def table(table_id):
        if _user(users) is None:
            return redirect(url_for("login_form"))
        shown = table_page.table_view(store, table_id, request.args.get("before"), keys_dir,
                                      data.build())
        if shown is None:
            abort(404, "the floor holds no table %s" % table_id)
        return render_template("table.html", user=g.user, role=g.role, csrf=session["csrf"],
                               shown=shown)

    @app.get("/tables/<table_id>/meter.json")
    def meter_chart(table_id):
        _needs_login(users)
        span = request.args.get("span", "day")
        if span not in table_page.SPANS:
            abort(400, "span is one of %s" % ", ".join(table_page.SPANS))
        return table_page.meter_points(store, table_id, span, data.clock())


def _standing(users, name, generation):
    # (name, role now) when that user is still there under the session's
    # generation, else None.
    now = users.standing(name) if name is not None else None
    if now is None or now[1] != generation:
        return None
    return name, now[0]


def _stream(broadcast, role, for_s, stopping, standing):
    # The floor's body for the viewer's role at once, then again at each
    # change; a comment line keeps the connection open between changes (and
    # finds a closed one). Every stream waits on the one shared builder
    # (broadcast.py). It ends when the session's grounds do (standing() false).
    version, started = 0, time.monotonic()
    while (for_s is None or time.monotonic() - started < for_s) and not stopping.is_set() \
            and standing():
        now, view = broadcast.newer_than(version, PUSH_EVERY_S)
        if now != version and view is not None:
            yield "data: %s\n\n" % json.dumps({"html": view[role]})
        else:
            yield ": quiet\n\n"
        version = now


def loopback(host):
    """True when host is a loopback address (the page may then run without TLS)."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server(app, host, port, tls=None):
    """A werkzeug server for the app on host:port, with HTTPS when tls is given."""
    # tls: (certfile, keyfile), werkzeug's ssl_context; the page's own HTTPS.
    from werkzeug.serving import make_server

    return make_server(host, port, app, threaded=True, ssl_context=tls)


def serve(app, host, port, tls=None):
    """Serve the app on host:port until interrupted."""
    server(app, host, port, tls).serve_forever()
