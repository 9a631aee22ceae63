# The floor's Mosquitto runs as a user of its own, never root: broker-config
# writes that user, shares the files the broker reads with its group alone,
# and refuses root; Mosquitto started as root drops to it and still reads them.
import os
import pwd
import stat
import time

import pytest
import servers
from test_broker_security import WAIT_S, account

from uthctl.cli import main as uthctl
from uthctl.floor.accounts import Accounts
from uthctl.wire.mqtt import Client

AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="the drop from root needs root")


def expected_user(folder):
    # As root, Debian's mosquitto where it exists, else the folder's owner
    # (read from the host's user database, not from the code under test).
    if os.geteuid() == 0:
        try:
            return pwd.getpwnam("mosquitto")
        except KeyError:
            pass
    return pwd.getpwuid(os.stat(folder).st_uid)


def user_lines(config):
    return [line for line in config.read_text().splitlines() if line.startswith("user ")]


def test_the_config_names_a_user_that_is_not_root(floor_dir, need_mosquitto):
    config = floor_dir.broker_config(1883)
    user = expected_user(floor_dir.folder)
    assert user.pw_uid != 0
    assert user_lines(config) == ["user %s" % user.pw_name]


def test_user_root_is_refused_and_nothing_written(floor_dir, need_mosquitto, capsys):
    with pytest.raises(ValueError, match="run as root"):
        floor_dir.broker_config(1883, user="root")
    assert uthctl(["floor", "--dir", str(floor_dir.folder), "broker-config",
                   "--user", "root"]) != 0
    assert "run as root" in capsys.readouterr().err
    assert not (floor_dir.folder / "mosquitto.conf").exists()


@AS_ROOT
def test_the_broker_files_are_its_groups_alone_and_stay_so_after_add_table(floor_dir,
                                                                          need_mosquitto):
    user = expected_user(floor_dir.folder)
    floor_dir.add_table("3")
    floor_dir.broker_config(1883)
    floor_dir.add_table("4")  # written again whole: the group and mode kept
    for path in (floor_dir.password_file, floor_dir.acl_file):
        found = os.stat(path)
        assert (found.st_uid, found.st_gid) == (0, user.pw_gid), path
        assert stat.S_IMODE(found.st_mode) == 0o640, path  # nothing for others
    assert "table-4" in floor_dir.acl_file.read_text()
    pid_folder = os.stat(floor_dir.pid_file.parent)
    assert (pid_folder.st_uid, stat.S_IMODE(pid_folder.st_mode)) == (user.pw_uid, 0o700)


@AS_ROOT
def test_a_folder_the_broker_cannot_reach_is_refused(tmp_path, need_mosquitto):
    # pytest's own folders are root's alone (mode 700): Mosquitto's user
    # could not open the password file there, and is told so before it starts.
    accounts = Accounts(tmp_path / "floor")
    accounts.init("riverside")
    with pytest.raises(ValueError, match="cannot reach"):
        accounts.broker_config(1883)


def test_add_table_warns_of_a_configuration_that_runs_the_broker_as_root(floor_dir, capsys):
    # One an older broker-config wrote: named at each add-table until replaced.
    config = floor_dir.folder / "mosquitto.conf"
    config.write_text("allow_anonymous false\nlistener 1883 127.0.0.1\nuser root\n")
    assert uthctl(["floor", "--dir", str(floor_dir.folder), "add-table", "5"]) == 0
    said = capsys.readouterr().out
    assert "warning: %s runs the broker as root" % config in said


def uid_of(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("Uid:"):
            return [int(n) for n in line.split()[1:]]
    raise AssertionError("no Uid in /proc/%d/status" % pid)


@AS_ROOT
def test_mosquitto_started_as_root_drops_to_its_user_and_reads_the_files(
        floor_dir, tmp_path, need_mosquitto):
    user = expected_user(floor_dir.folder)
    floor_dir.add_table("3")
    port = servers.free_port()
    server = servers.Mosquitto(floor_dir.broker_config(port), port,
                               tmp_path / "mosquitto.log").start()
    clients = []
    try:
        assert uid_of(server.process.pid) == [user.pw_uid] * 4  # real, effective, saved, fs
        three = Client(server.url, account(floor_dir, "table-3")).start()
        clients.append(three)
        assert three.connected.wait(WAIT_S), "refused: %s" % three.refused
        deadline = time.monotonic() + WAIT_S
        while not floor_dir.pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        # add-table's reload: the broker, no longer root, reads the files again.
        assert uthctl(["floor", "--dir", str(floor_dir.folder), "add-table", "5"]) == 0
        five = Client(server.url, account(floor_dir, "table-5")).start()
        clients.append(five)
        assert five.connected.wait(WAIT_S), "refused: %s" % five.refused
        assert "not run as root" not in (tmp_path / "mosquitto.log").read_text()
    finally:
        for client in clients:
            client.stop()
        server.kill()
