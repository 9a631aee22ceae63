# The floor page: one tile a table, kept live by server-sent events, behind
# a login. Viewers see; only a supervisor acknowledges an alert, and the
# acknowledgement is recorded with the supervisor's name. Reads the floor's
# database, which `uthctl floor` writes (SQLite in WAL mode lets both run).
import json
import secrets
import time

from flask import Flask, Response, abort, redirect, request, session, url_for

from .page_html import LOGIN, PAGE
from .tiles import tiles

PUSH_EVERY_S = 0.5  # how often the event stream looks for a change


def create_app(store, users, secret=None, stream_for_s=None, stopping=None):
    # stream_for_s: each event stream ends after that long (None: never);
    # stopping: a threading.Event that ends every stream when set.
    app = Flask(__name__)
    app.secret_key = secret or secrets.token_bytes(32)
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
                      FLOOR_USERS=users)

    def user():
        return session.get("user")

    def needs_login():
        if user() is None:
            abort(401)

    @app.get("/login")
    def login_form():
        return LOGIN.replace("{error}", "")

    @app.post("/login")
    def login():
        name = request.form.get("name", "")
        role = users.check(name, request.form.get("password", ""))
        if role is None:
            return LOGIN.replace("{error}", "name or password not known"), 401
        session.clear()
        session.update(user=name, role=role, csrf=secrets.token_urlsafe(16))
        return redirect(url_for("floor"))

    @app.post("/logout")
    def logout():
        session.clear()
        return redirect(url_for("login_form"))

    @app.get("/")
    def floor():
        if user() is None:
            return redirect(url_for("login_form"))
        return (PAGE.replace("{user}", _escape(user())).replace("{role}", session["role"])
                .replace("{csrf}", session["csrf"]))

    @app.get("/tiles.json")
    def tiles_now():
        needs_login()
        return {"tiles": tiles(store)}

    @app.get("/events")
    def events():
        needs_login()
        return Response(_stream(store, stream_for_s, stopping), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store"})

    @app.post("/alerts/<int:alert_id>/ack")
    def acknowledge(alert_id):
        needs_login()
        if session.get("role") != "supervisor":
            abort(403, "only a supervisor acknowledges alerts")
        if request.headers.get("X-CSRF-Token") != session.get("csrf"):
            abort(403, "the page's token is missing")
        if not store.acknowledge(alert_id, user()):
            abort(409, "no such alert standing")
        return {"acknowledged": alert_id, "by": user()}

    return app


def _stream(store, for_s, stopping):
    # The tiles at once, then again at each change; a comment line keeps the
    # connection open between changes (and finds a closed one).
    last, started = None, time.monotonic()
    while (for_s is None or time.monotonic() - started < for_s) and not (
            stopping is not None and stopping.is_set()):
        now = json.dumps(tiles(store), sort_keys=True)
        yield ("data: %s\n\n" % now) if now != last else ": quiet\n\n"
        last = now
        time.sleep(PUSH_EVERY_S)


def _escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def serve(app, host, port):
    from werkzeug.serving import make_server

    server = make_server(host, port, app, threaded=True)
    server.serve_forever()
