# The floor page's users: a name, a role (viewer or supervisor) and the
# password's hash (werkzeug's scrypt), in DIR/users.json for its owner alone.
# A password comes from a prompt or UTH_FLOOR_PASSWORD, never an argument.
import getpass
import json
import os
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

ROLES = ("viewer", "supervisor")
PASSWORD_ENV = "UTH_FLOOR_PASSWORD"
MIN_PASSWORD = 8


class Users:
    def __init__(self, path):
        self.path = Path(path)

    def all(self):
        if not self.path.exists():
            return {}
        return json.loads(self.path.read_text())

    def add(self, name, role, password):
        if role not in ROLES:
            raise ValueError("role %r: viewer or supervisor" % role)
        if not name or len(name) > 64 or not name.isprintable():
            raise ValueError("a user's name: 1 to 64 printable characters")
        if len(password) < MIN_PASSWORD:
            raise ValueError("a password of at least %d characters" % MIN_PASSWORD)
        users = self.all()
        users[name] = {"role": role, "hash": generate_password_hash(password)}
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as stream:
            json.dump(users, stream)

    def check(self, name, password):
        # The user's role when the password is theirs, else None.
        user = self.all().get(name)
        if user is None or not check_password_hash(user["hash"], password):
            return None
        return user["role"]


def password_from_user():
    given = os.environ.get(PASSWORD_ENV)
    if given:
        return given
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise ValueError("the two passwords differ")
    return first
