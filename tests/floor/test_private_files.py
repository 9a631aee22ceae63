# Every secret and state file the floor and its bridges keep is written
# whole or not at all, for its owner alone (uthctl/private_file.py). A write
# that fails part way is made real, not mocked: each case runs in a child
# Python whose file size limit (RLIMIT_FSIZE) stops the write after `limit`
# bytes with EFBIG, as a full disk would, whatever way the code writes.
import json
import os
import pwd
import re
import stat
import subprocess
import sys
import textwrap

import pytest
import servers
from chains import CASINO
from floor_data import PASSWORDS

from uthctl.bridge import anchor_state
from uthctl.floor.accounts import Accounts
from uthctl.floor.page.users import Users

HASH = "ab" * 32
LIMIT_FIRST = """
import resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal's death
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
"""


def fails_part_way(code, limit):
    # Runs code in a child whose files stop at `limit` bytes; the write must fail.
    script = LIMIT_FIRST.format(limit=limit) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-B", "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0, "the write did not fail: %s" % done.stdout
    assert "File too large" in done.stderr, done.stderr[-2000:]


def contents(folder):
    # {relative path: bytes} of every file under folder.
    found = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as stream:
                found[os.path.relpath(path, folder)] = stream.read()
    return found


def modes(folder):
    return {name: stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode)
            for name in contents(folder)}


def test_the_writer_leaves_the_old_file_whole_when_a_write_fails_part_way(tmp_path):
    from uthctl.private_file import write_private

    path = tmp_path / "state.json"
    write_private(path, "old " * 100)
    fails_part_way("""
        from uthctl.private_file import write_private
        write_private(%r, "new " * 1000)
        """ % str(path), limit=1000)
    assert path.read_text() == "old " * 100
    assert os.listdir(tmp_path) == ["state.json"]  # no temporary file left behind
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_user_added_when_the_disk_fills_loses_no_user(tmp_path):
    path = tmp_path / "users.json"
    users = Users(path)
    users.add("vera", "viewer", PASSWORDS["vera"])
    users.add("sam", "supervisor", PASSWORDS["sam"])
    before = path.read_bytes()
    # The new file (three users) is longer than the limit; the old one fits under it.
    fails_part_way("""
        from uthctl.floor.page.users import Users
        Users(%r).add("%s", "viewer", "a long enough password")
        """ % (str(path), "x" * 60), limit=len(before) + 20)
    assert path.read_bytes() == before
    assert Users(path).check("sam", PASSWORDS["sam"]) == "supervisor"


# What a whole line of each password file is: Mosquitto's PBKDF2-SHA512 and
# the embedded broker's Argon2id (its 32 byte hash in 43 base64 digits).
WHOLE_LINE = {"passwd": re.compile(r"^[\w-]+:\$7\$\d+\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]{86}==$"),
              "passwd.amqtt": re.compile(r"^[\w-]+:\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+"
                                         r"\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]{43}$")}


def whole(name, text):
    # Whether a floor folder's file is whole: its JSON parses, each password
    # line is complete, the ACL ends its last entry.
    if name.endswith(".json"):
        json.loads(text)
        return True
    if name in WHOLE_LINE:
        return all(WHOLE_LINE[name].match(line) for line in text.splitlines())
    return name != "acl" or text.endswith("\n")


@pytest.mark.parametrize("stopped_after", ["passwd.amqtt", "passwd", "acl"])
def test_a_table_added_when_the_disk_fills_leaves_every_file_whole(tmp_path, stopped_after,
                                                                    need_mosquitto):
    # The disk fills a little past one of the folder's files: add_table fails
    # at whichever write first grows a file past it; every file is then its
    # old self or a whole new one, never half written.
    accounts = Accounts(tmp_path / "floor")
    accounts.init(CASINO)
    accounts.add_table("3")
    before = contents(accounts.folder)
    assert all(whole(name, text.decode()) for name, text in before.items())
    fails_part_way("""
        from uthctl.floor.accounts import Accounts
        Accounts(%r).add_table("4")
        """ % str(accounts.folder), limit=len(before[stopped_after]) + 20)
    after = contents(accounts.folder)
    assert set(before) <= set(after)
    broken = [name for name, text in after.items()
              if text != before.get(name) and not whole(name, text.decode())]
    assert broken == []


def test_an_account_file_written_again_when_the_disk_fills_keeps_its_password(tmp_path):
    from uthctl.wire.mqtt import read_credentials, write_credentials

    path = tmp_path / "table-3.json"
    write_credentials(path, "table-3", "old password " * 4)
    fails_part_way("""
        from uthctl.wire.mqtt import write_credentials
        write_credentials(%r, "table-3", "a new and much longer password " * 10)
        """ % str(path), limit=100)
    assert read_credentials(path) == ("table-3", "old password " * 4)


def test_every_file_of_a_floor_folder_and_a_bridge_is_its_owners_alone(reachable,
                                                                       need_mosquitto):
    accounts = Accounts(reachable / "floor")
    accounts.init(CASINO, database="sqlite:///floor.db")
    accounts.add_table("3")
    accounts.rekey("3")
    accounts.broker_config(servers.free_port())
    Users(accounts.folder / "users.json").add("sam", "supervisor", PASSWORDS["sam"])
    anchor_state.save(accounts.folder / "bridge-3.json", "3", (41, HASH))
    found = modes(accounts.folder)
    expected = {"floor.json", "passwd", "passwd.amqtt", "acl", "mosquitto.conf",
                "accounts/floor.json", "accounts/audit.json", "accounts/table-3.json",
                "keys/3.json", "users.json", "users.json.lock", "bridge-3.json"}
    assert set(found) == expected
    # Run as root, the broker drops to a user of its own (Debian's mosquitto),
    # which must read its password file and ACL: those two are its group's too.
    shared = {"passwd", "acl"} if os.geteuid() == 0 else set()
    assert {name: mode for name, mode in found.items() if mode != 0o600} == \
        {name: 0o640 for name in shared}
    for name in shared:
        assert os.stat(accounts.folder / name).st_gid == pwd.getpwnam("mosquitto").pw_gid
    assert json.loads((accounts.folder / "floor.json").read_text())["tables"] == ["3"]
