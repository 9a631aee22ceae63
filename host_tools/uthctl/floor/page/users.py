# The floor page's users: a name, a role (viewer or supervisor), the
# password's hash (werkzeug's scrypt) and a generation, in DIR/users.json for
# its owner alone, written whole (private_file). A session
# carries the generation it was made under; adding the user again (a new
# role), a new password, removing the user or logging out moves or ends it,
# which ends every session of that user at its next request.
# A password comes from a prompt or UTH_FLOOR_PASSWORD, never an argument.
import contextlib
import fcntl
import getpass
import json
import os
import sys
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

from ...private_file import write_private
from ..errors import UserError

ROLES = ("viewer", "supervisor")
PASSWORD_ENV = "UTH_FLOOR_PASSWORD"
MIN_PASSWORD = 8
# Checked against when the name is unknown, so an unknown name costs the
# same time as a wrong password and the answer's time tells no names.
_NO_ONE = generate_password_hash("no one has this password")


class Users:
    def __init__(self, path):
        self.path = Path(path)

    def all(self):
        if not self.path.exists():
            return {}
        return json.loads(self.path.read_text())

    def listing(self):
        return [{"name": name, "role": user["role"]} for name, user in sorted(self.all().items())]

    def add(self, name, role, password):
        # A new user, or an existing one's new role and password.
        if role not in ROLES:
            raise UserError("role %r: viewer or supervisor" % role)
        if not name or len(name) > 64 or not name.isprintable():
            raise UserError("a user's name: 1 to 64 printable characters")
        _check_password(password)
        with self._changing() as users:
            generation = users.get(name, {}).get("generation", 0) + 1
            users[name] = {"role": role, "hash": generate_password_hash(password),
                           "generation": generation}

    def require(self, name):
        # Before a password is asked for: a name not known ends it first.
        _known(self.all(), name)

    def passwd(self, name, password):
        with self._changing() as users:
            user = _known(users, name)
            _check_password(password)
            user.update(hash=generate_password_hash(password),
                        generation=user.get("generation", 0) + 1)

    def remove(self, name):
        with self._changing() as users:
            _known(users, name)
            del users[name]

    def end_sessions(self, name):
        with self._changing() as users:
            if name in users:
                users[name]["generation"] = users[name].get("generation", 0) + 1

    def check(self, name, password):
        # The user's role when the password is theirs, else None.
        user = self.all().get(name)
        if user is None:
            check_password_hash(_NO_ONE, password)
            return None
        return user["role"] if check_password_hash(user["hash"], password) else None

    def standing(self, name):
        # (role, generation) of the user now, or None when there is none.
        user = self.all().get(name)
        return None if user is None else (user["role"], user.get("generation", 0))

    @contextlib.contextmanager
    def _changing(self):
        # One change at a time (the page's logouts and the command line's
        # changes), each written whole.
        lock = os.open(str(self.path) + ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            users = self.all()
            yield users
            write_private(self.path, json.dumps(users))
        finally:
            os.close(lock)


def _known(users, name):
    if name not in users:
        raise UserError("no floor page user %r" % name)
    return users[name]


def _check_password(password):
    if len(password) < MIN_PASSWORD:
        raise UserError("a password of at least %d characters" % MIN_PASSWORD)


def password_from_user(stdin=False):
    # stdin: its first line is the password (--password-stdin, for scripts:
    # no prompt, and no getpass warning that it cannot hide the echo).
    if stdin:
        line = sys.stdin.readline().rstrip("\r\n")
        if not line:
            raise UserError("--password-stdin: standard input held no password")
        return line
    given = os.environ.get(PASSWORD_ENV)
    if given:
        return given
    try:
        first = getpass.getpass("password: ")
        again = getpass.getpass("again: ")
    except EOFError:
        # No terminal, and standard input ended: nothing was typed.
        raise UserError("no terminal to ask the password on: set %s or run it in a "
                        "terminal" % PASSWORD_ENV) from None
    if again != first:
        raise UserError("the two passwords differ")
    return first
