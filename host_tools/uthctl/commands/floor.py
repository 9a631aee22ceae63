# uthctl floor [--dir DIR] --broker mqtt://HOST:PORT [--db URL]: the floor
# service (floor/service.py); `uthctl floor init` and `add-table` make the
# broker's accounts (floor/accounts.py) and `broker-config` its Mosquitto
# configuration.
import json
from pathlib import Path

from .. import event_log
from ..analysis import audit_report
from ..errors import UthctlError, expecting
from ..floor import database
from ..floor.accounts import AUDIT_USER, FLOOR_USER, Accounts
from ..floor.audit import board as audit_board
from ..floor.audit import floor_audit as audit
from ..floor.audit import live as audit_live
from ..floor.audit import text as audit_text
from ..floor.page import users
from ..floor.reload import reload_broker
from ..floor.service import Floor
from ..wire.mqtt import read_credentials
from .meters import seconds


def add_parser(sub):
    parser = sub.add_parser("floor", help="the casino floor: every table's records from the "
                            "MQTT broker into one database (docs/floor.md)")
    parser.add_argument("--dir", default="floor", metavar="DIR",
                        help="the floor's folder: accounts, password file, ACL (default floor)")
    parser.add_argument("--broker", metavar="mqtt://HOST:PORT")
    parser.add_argument("--embedded-broker", type=int, metavar="PORT",
                        help="run the embedded broker (amqtt) on 127.0.0.1:PORT instead of "
                        "using --broker: for one host with no Mosquitto")
    parser.add_argument("--cafile", metavar="FILE", help="with mqtts://: the CA that signed "
                        "the broker's certificate")
    parser.add_argument("--db", metavar="URL", help="sqlite:///FILE or postgresql+psycopg://"
                        "USER@HOST/NAME (default: the one `init --db` recorded in "
                        "DIR/floor.json, else DIR/floor.db)")
    actions = parser.add_subparsers(dest="action")
    _add_account_actions(actions)
    _add_audit_action(actions)
    _add_user_actions(actions)
    _add_page_action(actions)
    _add_broker_config_action(actions)
    return parser


def _add_account_actions(actions):
    init = actions.add_parser("init", help="a new floor folder with the floor's own account "
                              "and the audit's (with --db: the database it records)")
    init.add_argument("--casino", required=True, metavar="NAME")
    init.add_argument("--timezone", metavar="ZONE", help="the zone the floor page shows "
                      "times in, an IANA name such as America/New_York (default: the host's)")
    actions.add_parser("add-audit-account", help="the audit's broker account, for a floor "
                       "folder made without one")
    add = actions.add_parser("add-table", help="a table's broker account, ACL entries and "
                             "record key file")
    add.add_argument("table", metavar="ID")
    rekey = actions.add_parser("rekey", help="a new record key for a table, appended to its "
                               "key file: the one `uthctl provision` gives its board next")
    rekey.add_argument("table", metavar="ID")


def _add_audit_action(actions):
    check = actions.add_parser("audit", help="uthctl audit's checks over the database, "
                               "table by table, and a summary across tables")
    check.add_argument("--table", metavar="ID", help="this table only")
    check.add_argument("--since", metavar="YYYY-MM-DD", help="the records from this date (UTC)")
    check.add_argument("--plot", metavar="FILE.png", help="chart each table's meter, "
                       "FILE-<table>.png")
    # Here too, as a user puts them after `audit` (floor's own --broker is before it).
    check.add_argument("--broker", dest="audit_broker", metavar="mqtt://HOST:PORT",
                       help="ask each table's board for its head through its bridge (with "
                       "the audit's account, DIR/accounts/audit.json)")
    check.add_argument("--cafile", dest="audit_cafile", metavar="FILE")
    check.add_argument("--wait", type=seconds, default=10.0, metavar="S", help="with --broker: "
                       "seconds to wait for the boards' heads (default 10)")
    check.add_argument("--port", metavar="PORT", help="with --table: compare the database "
                       "with this board's own export, record by record")


def _add_user_actions(actions):
    user = actions.add_parser("add-user", help="a floor page user (password from a prompt "
                              "or UTH_FLOOR_PASSWORD)")
    user.add_argument("name")
    user.add_argument("--role", choices=users.ROLES, required=True)
    user.add_argument("--password-stdin", action="store_true", help="read the password "
                      "from standard input's first line (for scripts)")
    people = actions.add_parser("users", help="the floor page's users: list, remove NAME, "
                                "passwd NAME (each change ends that user's sessions)")
    people.add_argument("change", choices=("list", "remove", "passwd"))
    people.add_argument("name", nargs="?")
    people.add_argument("--password-stdin", action="store_true", help="passwd: read the "
                        "password from standard input's first line (for scripts)")


def _add_page_action(actions):
    page = actions.add_parser("page", help="serve the floor page")
    page.add_argument("--listen", type=int, default=8080, metavar="PORT")
    page.add_argument("--host", default="127.0.0.1",
                      help="the address to serve on (default loopback only; any other needs "
                      "--certfile and --keyfile)")
    page.add_argument("--certfile", metavar="FILE", help="the page's own HTTPS: its "
                      "certificate (PEM)")
    page.add_argument("--keyfile", metavar="FILE", help="the certificate's private key (PEM)")


def _add_broker_config_action(actions):
    config = actions.add_parser("broker-config", help="write DIR/mosquitto.conf")
    config.add_argument("--listen", type=int, default=1883, metavar="PORT",
                        help="the loopback port Mosquitto listens on (plain MQTT)")
    config.add_argument("--tls-listen", type=int, metavar="PORT",
                        help="also a TLS listener on this port (off loopback: TLS only)")
    config.add_argument("--tls-bind", default="0.0.0.0", metavar="ADDRESS")
    config.add_argument("--user", metavar="NAME",
                        help="the user Mosquitto runs as once started as root (default: "
                        "mosquitto where it exists, else the folder's owner; never root)")
    for name in ("cafile", "certfile", "keyfile"):
        config.add_argument("--" + name, metavar="FILE", help="the TLS listener's " + name)


@expecting(OSError)
def run(args):
    """uthctl floor: every table's records from the MQTT broker into one database."""
    accounts = Accounts(args.dir)
    if args.action == "init":
        return _said(args, {"floor": str(accounts.init(args.casino, args.db, args.timezone))},
                     "floor account's credentials: %s")
    if args.action == "add-audit-account":
        return _said(args, {"audit": str(accounts.add_audit())},
                     "audit account's credentials: %s (reload the broker)")
    if args.action == "add-table":
        return add_table(args, accounts)
    if args.action == "rekey":
        key_id = accounts.rekey(args.table)
        return _said(args, {"table": args.table, "key_id": key_id,
                            "keys": str(accounts.key_file(args.table))},
                     "new record key %s in %s (give it to the board with uthctl provision)")
    if args.action == "broker-config":
        path = accounts.broker_config(args.listen, tls=_tls(args), user=args.user)
        return _said(args, {"config": str(path)},
                     "Mosquitto configuration: %s (mosquitto -c it; add-table reloads it)")
    if args.action == "audit":
        return run_audit(args)
    if args.action == "add-user":
        users.Users(Path(args.dir) / "users.json").add(args.name, args.role,
                                                       users.password_from_user(
                                                           args.password_stdin))
        return _said(args, {"user": args.name, "role": args.role},
                     "user %s added, role %s (any session of theirs ended)")
    if args.action == "users":
        return run_users(args)
    if args.action == "page":
        return run_page(args)
    return serve(args, accounts)


def add_table(args, accounts):
    credentials = str(accounts.add_table(args.table))
    keys = str(accounts.key_file(args.table))
    broker = reload_broker(accounts)
    if args.json:
        print(json.dumps({"table": args.table, "credentials": credentials, "keys": keys,
                          "broker": broker}))
    else:
        print("table account's credentials: %s\ntable's record key file: %s (give it to the "
              "board with uthctl provision)\n%s" % (credentials, keys, broker))
    return 0


def database_url(args):
    # --db, else the URL `init --db` recorded, else the folder's SQLite file.
    if args.db:
        return args.db
    accounts = Accounts(args.dir)
    recorded = accounts.settings().get("db") if accounts.settings_path.exists() else None
    return recorded or database.sqlite_url(Path(args.dir).resolve() / "floor.db")


def run_users(args):
    people = users.Users(Path(args.dir) / "users.json")
    if args.change == "list":
        listing = people.listing()
        print(json.dumps(listing) if args.json else "\n".join(
            "%s (%s)" % (user["name"], user["role"]) for user in listing) or "no users")
        return 0
    if not args.name:
        raise UthctlError("uthctl floor users %s NAME" % args.change)
    if args.change == "remove":
        people.remove(args.name)
        return _said(args, {"removed": args.name}, "user %s removed (sessions ended)")
    people.require(args.name)  # an unknown name is said before a password is asked for
    people.passwd(args.name, users.password_from_user(args.password_stdin))
    return _said(args, {"password": args.name}, "user %s has a new password (sessions ended)")


def page_tls(args):
    # (certfile, keyfile) for the page's own HTTPS, or None; off loopback
    # it is required, since the session cookie is then Secure.
    from ..floor.page.app import loopback

    if bool(args.certfile) != bool(args.keyfile):
        raise UthctlError("uthctl floor page: give --certfile and --keyfile together")
    if not args.certfile and not loopback(args.host):
        raise UthctlError("uthctl floor page --host %s: off loopback the page serves HTTPS "
                          "only; give --certfile FILE --keyfile FILE" % args.host)
    return (args.certfile, args.keyfile) if args.certfile else None


def run_page(args):
    from ..floor.page import app as page

    tls = page_tls(args)
    settings = _floor_settings(Accounts(args.dir))
    opened = database.FloorDatabase(database_url(args))
    app = page.create_app(opened, users.Users(Path(args.dir) / "users.json"),
                          secure_cookie=tls is not None, keys_dir=Path(args.dir) / "keys",
                          zone=settings.get("timezone"), casino=settings.get("casino"))
    print("the floor page: %s://%s:%d/" % ("https" if tls else "http", args.host, args.listen),
          flush=True)
    try:
        page.serve(app, args.host, args.listen, tls)
    except KeyboardInterrupt:
        pass
    finally:
        opened.close()
    return 0


def _floor_settings(accounts):
    # The casino and the zone `init` recorded; a folder from before the
    # zone shows the host's, a page with no floor folder names no casino.
    try:
        return accounts.settings()
    except (OSError, ValueError):
        return {}


def run_audit(args):
    # Exit 0: every table verified; 1: anything failed; 3: nothing failed but
    # something rests on the database's word alone (unsigned, head unconfirmed).
    if args.plot:
        audit_report.check_plot_path(args.plot)
    if args.port and not args.table:
        raise UthctlError("--port needs --table: the board's table")
    if args.port and (args.audit_broker or args.broker):
        raise UthctlError("give --port (the board's export) or --broker (its head, live), "
                          "not both")
    since = audit.since_timestamp(args.since) if args.since else None
    accounts = Accounts(args.dir)
    settings = accounts.settings()  # the audit never runs on a folder that is no floor's
    opened = database.FloorDatabase(database_url(args), create=False)
    try:
        heads = _heads(args, accounts, settings["casino"])
        report = audit.audit_tables(opened, args.table, since, Path(args.dir) / "keys", heads,
                                    accounts=settings.get("tables", ()))
    finally:
        opened.close()
    if args.plot:
        report["plots"] = audit.plots(report, args.plot)
    print(json.dumps(report) if args.json else audit_text.text(report))
    return audit.EXIT[report["verdict"]]


def _heads(args, accounts, casino):
    # How each table's head is held against its board's: its export over
    # --port, or live through the broker; None: not at all.
    if args.port:
        return audit_board.board_heads(args.port, args.table)
    broker = args.audit_broker or args.broker
    if not broker:
        return None
    path = accounts.credentials(AUDIT_USER)
    if not path.exists():
        raise UthctlError("no audit account in %s: `uthctl floor --dir %s add-audit-account` "
                          "makes one" % (args.dir, args.dir))
    ask = audit_live.asker(broker, read_credentials(path), casino, Path(args.dir) / "keys",
                           args.wait, args.audit_cafile or args.cafile)
    return audit.check_heads(ask)


def _tls(args):
    if args.tls_listen is None:
        return None
    missing = [name for name in ("cafile", "certfile", "keyfile") if not getattr(args, name)]
    if missing:
        raise UthctlError("--tls-listen needs --%s" % ", --".join(missing))
    return {"port": args.tls_listen, "bind": args.tls_bind, "cafile": args.cafile,
            "certfile": args.certfile, "keyfile": args.keyfile}


def _said(args, result, words):
    # words takes the result's last value, or as many values as it has %s.
    values = list(result.values())[-words.count("%s"):]
    print(json.dumps(result) if args.json else words % tuple(values))
    return 0


def serve(args, accounts):
    if bool(args.broker) == (args.embedded_broker is not None):
        raise UthctlError("uthctl floor: give --broker mqtt://HOST:PORT or --embedded-broker "
                          "PORT (one of them)")
    settings = accounts.settings()
    url = database_url(args)
    account = read_credentials(accounts.credentials(FLOOR_USER))
    embedded = None
    if args.embedded_broker is not None:
        from ..floor.embedded import EmbeddedBroker

        embedded = EmbeddedBroker(accounts, args.embedded_broker).start()
    floor = Floor(args.broker or embedded.url, account, settings["casino"],
                  database.FloorDatabase(url), cafile=args.cafile, keys=accounts.keys_folder)
    try:
        with event_log.to_stderr():  # one timestamped line an event
            floor.run()
    except KeyboardInterrupt:
        pass
    finally:
        if embedded is not None:
            embedded.stop()
    return 0
