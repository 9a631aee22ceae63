# The audit's own broker account: made by `uthctl floor init`, or by
# `add-audit-account` for a folder made before the audit had one; the ACL
# lets it publish requests and read the tables' events, nothing else.
import json
import os

from chains import CASINO

from uthctl.cli import main as uthctl
from uthctl.floor.accounts import AUDIT_USER, Accounts
from uthctl.wire.mqtt import read_credentials

AUDIT_ACL = ["user audit", "topic write uth/%s/+/command" % CASINO,
             "topic read uth/%s/+/event" % CASINO]


def acl_block(accounts, user):
    lines = accounts.acl_file.read_text().splitlines() + [""]
    start = lines.index("user %s" % user)
    return lines[start:lines.index("", start)]


def test_init_makes_the_audits_account_for_its_owner_alone(floor_dir):
    path = floor_dir.credentials(AUDIT_USER)
    assert os.stat(path).st_mode & 0o077 == 0
    assert read_credentials(path)[0] == AUDIT_USER
    assert acl_block(floor_dir, AUDIT_USER) == AUDIT_ACL


def test_a_folder_without_the_audits_account_gets_one(tmp_path, capsys):
    folder = tmp_path / "floor"
    assert uthctl(["floor", "--dir", str(folder), "init", "--casino", CASINO]) == 0
    accounts = Accounts(folder)
    accounts.credentials(AUDIT_USER).unlink()  # as a folder made before the audit had one
    accounts.write_acl()
    assert "user audit" not in accounts.acl_file.read_text()
    capsys.readouterr()
    assert uthctl(["floor", "--dir", str(folder), "add-audit-account", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "audit": str(accounts.credentials(AUDIT_USER))}
    assert acl_block(accounts, AUDIT_USER) == AUDIT_ACL
    assert uthctl(["floor", "--dir", str(folder), "add-audit-account"]) == 2
    assert "the audit already has an account" in capsys.readouterr().err


def test_init_without_db_records_none(floor_dir):
    assert "db" not in json.loads(floor_dir.settings_path.read_text())


def test_init_refuses_to_record_a_database_password(tmp_path, capsys):
    folder = tmp_path / "floor"
    code = uthctl(["floor", "--dir", str(folder), "--db",
                   "postgresql+psycopg://floor:s3cret@db.example/floor", "init", "--casino",
                   CASINO])
    assert code == 2 and "no password in the URL" in capsys.readouterr().err
    assert not folder.exists()  # nothing made
