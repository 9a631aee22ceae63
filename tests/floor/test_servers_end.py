# A killed test run leaves no server behind: a pytest process that started
# a Mosquitto, a PostgreSQL (servers.py) and a `uthctl bridge` (as the
# virtual tables start theirs) is killed with SIGKILL, as a time limit kills
# it, and none of them, nor any process of the database's, is left running.
# The way they end is floor_demo/ending.py's.
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import servers

from floor_demo.ending import ending_with_us

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ENDED_WITHIN_S = 20.0
INNER = """
import json
import os
import threading

import servers
from floor_demo.virtual_tables import uthctl_process

from uthctl.wire.mqtt import write_credentials


def test_servers_then_hold(tmp_path):
    port = servers.free_port()
    config = tmp_path / "mosquitto.conf"
    # As root Mosquitto becomes user mosquitto unless told not to (as
    # broker_config tells it), and a change of user clears the signal.
    config.write_text("listener %d 127.0.0.1\\nallow_anonymous true\\n%s"
                      % (port, "user root\\n" if os.geteuid() == 0 else ""))
    broker = servers.Mosquitto(config, port, tmp_path / "mosquitto.log").start()
    started = {"mosquitto": broker.process.pid}
    # A bridge whose board is not there: it would try again for ever.
    credentials = tmp_path / "table-3.json"
    write_credentials(credentials, "table-3", "unused password")
    bridge = uthctl_process(["bridge", "--port", str(tmp_path / "no-board"), "--broker",
                             broker.url, "--table", "3", "--casino", "riverside",
                             "--credentials", str(credentials)], tmp_path / "bridge.log")
    started["bridge"] = bridge.pid
    if servers.why_no_postgres() is None:
        database = servers.Postgres().start()
        started.update(postgres=database.process.pid, folder=str(database.folder))
    print("STARTED " + json.dumps(started), flush=True)
    threading.Event().wait()  # until killed
"""


def descendants(pid):
    # pid and every process under it, from /proc.
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = _stat(int(entry.name))[1]
            except OSError:
                continue
    found, more = {pid}, [pid]
    while more:
        parent = more.pop()
        children = [child for child, its in parents.items() if its == parent]
        found.update(children)
        more += children
    return found


def _stat(pid):
    # (state, parent pid) of a process; OSError once it is gone.
    text = Path("/proc/%d/stat" % pid).read_text()
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1])


def running(pid):
    # A zombie (ended, not yet reaped by whoever inherited it) runs nothing.
    try:
        return _stat(pid)[0] not in ("Z", "X")
    except OSError:
        return False


def test_a_killed_test_run_leaves_no_server_behind(tmp_path, need_mosquitto):
    (tmp_path / "test_inner.py").write_text(INNER)
    paths = [str(HERE), str(ROOT / "tools"), str(ROOT / "firmware")]
    paths += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    inner = subprocess.Popen([sys.executable, "-m", "pytest", "-s", "-q", "-p",
                              "no:cacheprovider", "test_inner.py"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, text=True)
    try:
        said = []
        for line in inner.stdout:  # ends at the line, or when the inner run ends
            said.append(line)
            if line.startswith("STARTED "):
                break
        assert said and said[-1].startswith("STARTED "), "".join(said)[-3000:]
        started = json.loads(said[-1][len("STARTED "):])
        watched = {name: descendants(started[name])
                   for name in ("mosquitto", "bridge", "postgres") if name in started}
        os.kill(inner.pid, signal.SIGKILL)
        inner.wait()
        deadline = time.monotonic() + ENDED_WITHIN_S
        left = watched
        while left and time.monotonic() < deadline:
            left = {name: [pid for pid in pids if running(pid)] for name, pids in left.items()}
            left = {name: pids for name, pids in left.items() if pids}
            time.sleep(0.05)
        assert left == {}, "still running after the test run was killed: %s" % left
        if servers.why_no_postgres() is None:
            assert "postgres" in watched and len(watched["postgres"]) > 1  # its workers too
    finally:
        if inner.poll() is None:
            inner.kill()
            inner.wait()
        inner.stdout.close()
        if "started" in locals() and "folder" in started:
            shutil.rmtree(started["folder"], ignore_errors=True)


@pytest.mark.parametrize("user", [None, "postgres"])
def test_a_server_started_from_a_thread_that_ended_keeps_running(user):
    # The signal follows the thread that started the process: servers start
    # from one thread that lasts, so a broker restarted from a test's own
    # thread (the soak's blows) outlives that thread.
    import threading

    if user is not None and (os.geteuid() != 0 or servers.why_no_postgres() is not None):
        pytest.skip("starting a process as another user needs root and a postgres user")
    started = []
    thread = threading.Thread(target=lambda: started.append(ending_with_us(
        [shutil.which("cat")], user=user, stdin=subprocess.PIPE, stdout=subprocess.PIPE)))
    thread.start()
    thread.join()
    process = started[0]
    try:
        process.stdin.write(b"alive?\n")
        process.stdin.flush()
        assert process.stdout.readline() == b"alive?\n"  # b"" had it been killed
    finally:
        process.kill()
        process.wait()
        process.stdin.close()
        process.stdout.close()
