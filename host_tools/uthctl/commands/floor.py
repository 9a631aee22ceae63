# uthctl floor [--dir DIR] --broker mqtt://HOST:PORT [--db URL]: the floor
# service (floor/service.py); `uthctl floor init` and `add-table` make the
# broker's accounts (floor/accounts.py) and `broker-config` its Mosquitto
# configuration.
import json
from pathlib import Path

from ..analysis import audit_report
from ..errors import UthctlError, expecting
from ..floor import audit, store, users
from ..floor.accounts import FLOOR_USER, Accounts
from ..floor.mqtt import read_credentials
from ..floor.reload import reload_broker
from ..floor.service import Floor


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
    parser.add_argument("--db", metavar="URL", help="sqlite:///FILE (default DIR/floor.db) or "
                        "postgresql+psycopg://USER@HOST/NAME")
    actions = parser.add_subparsers(dest="action")
    init = actions.add_parser("init", help="a new floor folder with the floor's own account")
    init.add_argument("--casino", required=True, metavar="NAME")
    add = actions.add_parser("add-table", help="a table's broker account, ACL entries and "
                             "record key file")
    add.add_argument("table", metavar="ID")
    rekey = actions.add_parser("rekey", help="a new record key for a table, appended to its "
                               "key file: the one `uthctl provision` gives its board next")
    rekey.add_argument("table", metavar="ID")
    check = actions.add_parser("audit", help="uthctl audit's checks over the database, "
                               "table by table, and a summary across tables")
    check.add_argument("--table", metavar="ID", help="this table only")
    check.add_argument("--since", metavar="YYYY-MM-DD", help="the records from this date (UTC)")
    check.add_argument("--plot", metavar="FILE.png", help="chart each table's meter, "
                       "FILE-<table>.png")
    user = actions.add_parser("add-user", help="a floor page user (password from a prompt "
                              "or UTH_FLOOR_PASSWORD)")
    user.add_argument("name")
    user.add_argument("--role", choices=users.ROLES, required=True)
    people = actions.add_parser("users", help="the floor page's users: list, remove NAME, "
                                "passwd NAME (each change ends that user's sessions)")
    people.add_argument("change", choices=("list", "remove", "passwd"))
    people.add_argument("name", nargs="?")
    page = actions.add_parser("page", help="serve the floor page")
    page.add_argument("--listen", type=int, default=8080, metavar="PORT")
    page.add_argument("--host", default="127.0.0.1",
                      help="the address to serve on (default loopback only; any other needs "
                      "--certfile and --keyfile)")
    page.add_argument("--certfile", metavar="FILE", help="the page's own HTTPS: its "
                      "certificate (PEM)")
    page.add_argument("--keyfile", metavar="FILE", help="the certificate's private key (PEM)")
    config = actions.add_parser("broker-config", help="write DIR/mosquitto.conf")
    config.add_argument("--listen", type=int, default=1883, metavar="PORT",
                        help="the loopback port Mosquitto listens on (plain MQTT)")
    config.add_argument("--tls-listen", type=int, metavar="PORT",
                        help="also a TLS listener on this port (off loopback: TLS only)")
    config.add_argument("--tls-bind", default="0.0.0.0", metavar="ADDRESS")
    for name in ("cafile", "certfile", "keyfile"):
        config.add_argument("--" + name, metavar="FILE", help="the TLS listener's " + name)
    return parser


@expecting(OSError, ValueError)
def run(args):
    accounts = Accounts(args.dir)
    if args.action == "init":
        return _said(args, {"floor": str(accounts.init(args.casino))},
                     "floor account's credentials: %s")
    if args.action == "add-table":
        return add_table(args, accounts)
    if args.action == "rekey":
        key_id = accounts.rekey(args.table)
        return _said(args, {"table": args.table, "key_id": key_id,
                            "keys": str(accounts.key_file(args.table))},
                     "new record key %s in %s (give it to the board with uthctl provision)")
    if args.action == "broker-config":
        path = accounts.broker_config(args.listen, tls=_tls(args))
        return _said(args, {"config": str(path)},
                     "Mosquitto configuration: %s (mosquitto -c it; add-table reloads it)")
    if args.action == "audit":
        return run_audit(args)
    if args.action == "add-user":
        users.Users(Path(args.dir) / "users.json").add(args.name, args.role,
                                                       users.password_from_user())
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


def database(args):
    return args.db or store.sqlite_url(Path(args.dir).resolve() / "floor.db")


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
    people.passwd(args.name, users.password_from_user())
    return _said(args, {"password": args.name}, "user %s has a new password (sessions ended)")


def page_tls(args):
    # (certfile, keyfile) for the page's own HTTPS, or None; off loopback
    # it is required, since the session cookie is then Secure.
    from ..floor.page import loopback

    if bool(args.certfile) != bool(args.keyfile):
        raise UthctlError("uthctl floor page: give --certfile and --keyfile together")
    if not args.certfile and not loopback(args.host):
        raise UthctlError("uthctl floor page --host %s: off loopback the page serves HTTPS "
                          "only; give --certfile FILE --keyfile FILE" % args.host)
    return (args.certfile, args.keyfile) if args.certfile else None


def run_page(args):
    from ..floor import page

    tls = page_tls(args)
    opened = store.Store(database(args))
    app = page.create_app(opened, users.Users(Path(args.dir) / "users.json"),
                          secure_cookie=tls is not None)
    print("the floor page: %s://%s:%d/" % ("https" if tls else "http", args.host, args.listen),
          flush=True)
    try:
        page.serve(app, args.host, args.listen, tls)
    except KeyboardInterrupt:
        pass
    finally:
        opened.close()
    return 0


def run_audit(args):
    if args.plot:
        audit_report.check_plot_path(args.plot)
    since = audit.since_timestamp(args.since) if args.since else None
    opened = store.Store(database(args))
    try:
        report = audit.audit_tables(opened, args.table, since)
    finally:
        opened.close()
    if args.plot:
        report["plots"] = audit.plots(report, args.plot)
    print(json.dumps(report) if args.json else audit.text(report))
    return 0 if report["ok"] else 1


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
    url = database(args)
    account = read_credentials(accounts.credentials(FLOOR_USER))
    embedded = None
    if args.embedded_broker is not None:
        from ..floor.embedded import EmbeddedBroker

        embedded = EmbeddedBroker(accounts, args.embedded_broker).start()
    floor = Floor(args.broker or embedded.url, account, settings["casino"], store.Store(url),
                  cafile=args.cafile, keys=accounts.keys_folder)
    try:
        floor.run()
    except KeyboardInterrupt:
        pass
    finally:
        if embedded is not None:
            embedded.stop()
    return 0
