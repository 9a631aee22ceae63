# The broker's accounts for one floor, kept in a folder: the floor's own and
# one a table, each password random, hashed into Mosquitto's password file
# by mosquitto_passwd (fed on its standard input, never its command line)
# and handed to its bridge in a credentials file only its owner reads.
# The ACL lets a table publish only under its own topics and read only its
# own command topic; the floor reads everything and writes only commands;
# the audit (its own account, for the floor's client id is the running
# service's) asks the tables and reads only their events. Each table has a
# record key file in keys/ (owner-only folder), the keys the floor checks its
# board's records with (analysis/record_auth.py).
import json
import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..analysis import record_auth
from ..private_file import append_private, write_private
from ..wire import topics
from ..wire.mqtt import write_credentials
from . import broker_user, table_keys, zone
from .errors import AccountError, FloorConfigError

FLOOR_USER = "floor"
AUDIT_USER = "audit"
PASSWORD_BYTES = 24
# A listener's option in Mosquitto 2.0 (after each `listener` line, or it is
# ignored): the client id is the user name, so no account takes another's.
BIND_IDS = "use_username_as_clientid true"


def recordable_url(url):
    # floor.json is no secret: a database password goes in PostgreSQL's own
    # ~/.pgpass or PGPASSWORD, never into it.
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise FloorConfigError("--db %s: not a database URL (sqlite:///FILE or "
                               "postgresql+psycopg://USER@HOST/NAME)" % url) from None
    if parsed.password is not None:
        raise FloorConfigError("--db: no password in the URL floor.json keeps; give it in "
                               "~/.pgpass or PGPASSWORD")
    return url


class Accounts:
    def __init__(self, folder):
        self.folder = Path(folder)

    @property
    def settings_path(self):
        return self.folder / "floor.json"

    @property
    def password_file(self):
        return self.folder / "passwd"

    @property
    def acl_file(self):
        return self.folder / "acl"

    @property
    def pid_file(self):
        # In a folder of the broker's user's own: Mosquitto writes it after
        # dropping root (broker_user.py).
        return self.folder / "broker" / "mosquitto.pid"

    def _broker_group(self):
        # The group the broker's files are shared with once broker-config
        # named its user; None before (mode 600, as every private file).
        user = self.settings().get("broker_user") if self.settings_path.exists() else None
        return None if user is None else broker_user.group_for(user)

    def credentials(self, user):
        return self.folder / "accounts" / ("%s.json" % user)

    @property
    def keys_folder(self):
        return self.folder / "keys"

    def key_file(self, table):
        return table_keys.key_file(self.keys_folder, topics.check_name(table))

    def settings(self):
        try:
            return json.loads(self.settings_path.read_text())
        except OSError:
            raise FloorConfigError("%s is no floor folder: `uthctl floor init --dir %s` makes one"
                                   % (self.folder, self.folder)) from None

    # ---- making them ----

    def init(self, casino, database=None, timezone=None):
        # database: the URL `uthctl floor`, `page` and `audit` use unless --db says otherwise;
        # timezone: the zone the page shows times in (IANA name; default the host's).
        topics.check_name(casino, "casino")
        if database is not None:
            recordable_url(database)
        timezone = timezone or zone.host_zone_name()
        zone.named(timezone)
        if self.settings_path.exists():
            raise FloorConfigError("%s already holds a floor (casino %r)"
                                   % (self.folder, self.settings()["casino"]))
        (self.folder / "accounts").mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder / "accounts", 0o700)
        settings = {"casino": casino, "tables": [], "timezone": timezone}
        if database is not None:
            settings["db"] = database
        write_private(self.settings_path, json.dumps(settings))
        write_private(self.password_file, "")
        self._add_user(FLOOR_USER)
        self._add_user(AUDIT_USER)
        self.write_acl()
        return self.credentials(FLOOR_USER)

    def add_audit(self):
        # The audit's account, for a floor folder made before it had one.
        self.settings()
        if self.credentials(AUDIT_USER).exists():
            raise AccountError("the audit already has an account: %s"
                               % self.credentials(AUDIT_USER))
        self._add_user(AUDIT_USER)
        self.write_acl()
        return self.credentials(AUDIT_USER)

    def add_table(self, table):
        settings = self.settings()
        topics.check_name(table)
        if table in settings["tables"]:
            raise AccountError("table %s already has an account: %s"
                               % (table, self.credentials(topics.user_of(table))))
        self._add_user(topics.user_of(table))
        settings["tables"].append(table)
        write_private(self.settings_path, json.dumps(settings))
        self.write_acl()
        if not self.key_file(table).exists():  # an earlier add-table's keys stay
            self.rekey(table)
        return self.credentials(topics.user_of(table))

    def rekey(self, table):
        # A new record key appended to the table's key file; its key id.
        if table not in self.settings()["tables"]:
            raise AccountError("table %s has no account: `uthctl floor add-table %s` first"
                               % (table, table))
        self.keys_folder.mkdir(mode=0o700, exist_ok=True)
        os.chmod(self.keys_folder, 0o700)
        return record_auth.add_key(self.key_file(table), table)

    def _add_user(self, user):
        password = secrets.token_urlsafe(PASSWORD_BYTES)
        self._add_embedded_user(user, password)
        tool = shutil.which("mosquitto_passwd")
        if tool is not None:
            self._add_mosquitto_user(tool, user, password)
        write_credentials(self.credentials(user), user, password)

    def _add_mosquitto_user(self, tool, user, password):
        # mosquitto_passwd rewrites its file in place, so it makes the user's
        # line in a file of its own, in a private folder, and the password
        # file is written whole with that line added (private_file). It asks
        # twice, as a person would type it; the password never stands in an
        # argument list, where `ps` would show it.
        with tempfile.TemporaryDirectory(dir=self.folder, prefix=".passwd-") as work:
            one = Path(work) / "passwd"
            done = subprocess.run([tool, "-c", str(one), user],
                                  input="%s\n%s\n" % (password, password), text=True,
                                  capture_output=True)
            if done.returncode != 0:
                raise OSError("mosquitto_passwd failed: %s" % done.stderr.strip())
            line = one.read_text()
        kept = [old for old in self.password_file.read_text().splitlines(keepends=True)
                if not old.startswith(user + ":")]
        write_private(self.password_file, "".join(kept) + line, group=self._broker_group())

    @property
    def embedded_password_file(self):
        return self.folder / "passwd.amqtt"

    def _add_embedded_user(self, user, password):
        # The embedded broker's (amqtt's) password file: Argon2 hashes.
        from pwdlib import PasswordHash
        from pwdlib.hashers.argon2 import Argon2Hasher

        line = "%s:%s\n" % (user, PasswordHash((Argon2Hasher(),)).hash(password))
        append_private(self.embedded_password_file, line)

    def acl(self):
        # (publish, subscribe): each account's topics, as write_acl writes them.
        settings = self.settings()
        casino = settings["casino"]
        publish = {FLOOR_USER: ["%s/%s/+/%s" % (topics.ROOT, casino, topics.COMMAND)]}
        subscribe = {FLOOR_USER: ["%s/#" % topics.ROOT]}
        if self.credentials(AUDIT_USER).exists():
            publish[AUDIT_USER] = [publish[FLOOR_USER][0]]
            subscribe[AUDIT_USER] = ["%s/%s/+/%s" % (topics.ROOT, casino, topics.EVENT)]
        for table in settings["tables"]:
            user = topics.user_of(table)
            publish[user] = [topics.topic(casino, table, kind) for kind in topics.PUBLISHED]
            subscribe[user] = [topics.topic(casino, table, topics.COMMAND)]
        return publish, subscribe

    def write_acl(self):
        publish, subscribe = self.acl()
        lines = ["# Written by uthctl floor; changes are lost at the next add-table."]
        for user in publish:
            lines.append("user %s" % user)
            lines += ["topic write %s" % name for name in publish[user]]
            lines += ["topic read %s" % name for name in subscribe[user]]
            lines.append("")
        write_private(self.acl_file, "\n".join(lines), group=self._broker_group())

    def broker_config(self, port, path=None, tls=None, user=None):
        if shutil.which("mosquitto_passwd") is None:
            raise OSError("no mosquitto_passwd when the accounts were made: install Debian's "
                          "mosquitto and make the floor folder again, or run "
                          "`uthctl floor --embedded-broker PORT`")
        # A Mosquitto configuration for this floor: no anonymous client, the
        # password file and the ACL above, each client's id its user name
        # (so no account takes another's id and knocks it off), a pid file
        # add-table reloads it by, plain MQTT on loopback only, and with
        # tls={"bind", "port", "cafile", "certfile", "keyfile"} a TLS
        # listener, the only one that may face the network.
        user = user or broker_user.default_user(self.folder)
        broker_user.checked(user)
        broker_user.pid_folder(self.folder, user)
        lines = ["per_listener_settings false", "allow_anonymous false",
                 "password_file %s" % self.password_file.resolve(),
                 "acl_file %s" % self.acl_file.resolve(),
                 "pid_file %s" % self.pid_file.resolve(), "persistence false",
                 "log_dest stderr", "log_type error", "log_type warning", "log_type notice",
                 # The floor acknowledges a batch once committed (intake_batch.py):
                 # as many unacknowledged as a batch takes (Mosquitto's default, 20).
                 "max_inflight_messages 500",
                 "listener %d 127.0.0.1" % port, BIND_IDS]
        if tls is not None:
            lines += ["listener %d %s" % (tls["port"], tls["bind"]), BIND_IDS,
                      "cafile %s" % Path(tls["cafile"]).resolve(),
                      "certfile %s" % Path(tls["certfile"]).resolve(),
                      "keyfile %s" % Path(tls["keyfile"]).resolve(), "tls_version tlsv1.2"]
        lines.append("user %s" % user)  # Mosquitto started as root drops to it
        self._share_with_broker(user, tls)
        path = Path(path or self.folder / "mosquitto.conf")
        write_private(path, "\n".join(lines) + "\n")
        return path

    def _share_with_broker(self, user, tls):
        # The password file and ACL written again for the broker's group to
        # read (the user kept in floor.json, so each add-table does the same);
        # refused if the broker could not read them or its TLS files.
        settings = self.settings()
        settings["broker_user"] = user
        write_private(self.settings_path, json.dumps(settings))
        group = self._broker_group()
        for path in (self.password_file, self.acl_file):
            write_private(path, path.read_text(), group=group)
        tls_files = [tls[name] for name in ("cafile", "certfile", "keyfile")] if tls else []
        broker_user.refuse_unreadable(user, [self.password_file, self.acl_file] + tls_files)
