# The virtual board's interpreter is tied to its supervisor without a
# preexec_fn: CPython documents preexec_fn as unsafe in a process with
# threads (the child may deadlock before exec), and the supervisor has them.
# The kill tests (test_vboard_flash.py, test_vboard_power.py) check that the
# interpreter still dies with its supervisor; these check how it is started.
import os
import signal
import subprocess
import sys
import threading

import pytest

from uthctl.boards import supervisor
from uthctl.boards.virtual import VirtualBoard

pytestmark = pytest.mark.target("sim")  # the virtual board's interpreter processes


def wrapper():
    return [sys.executable, "-I", "-S", str(supervisor.PARENT_DEATH)]


@pytest.mark.board
def test_vboard_spawns_its_interpreter_without_preexec_fn(micropython, tmp_path, monkeypatch):
    spawned = []
    real_popen = subprocess.Popen

    def recording_popen(*args, **kwargs):
        spawned.append(kwargs)
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", recording_popen)
    # Threads besides the caller, as in `uthctl sim`: the case preexec_fn is unsafe in.
    busy = threading.Event()
    other = threading.Thread(target=busy.wait, daemon=True)
    other.start()
    try:
        with VirtualBoard(flash=tmp_path / "flash.img") as vb:
            state = vb.wait_started()
            assert state["state"] == "unconfigured", state
            pid = vb.state()["pid"]
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                words = [w.decode() for w in f.read().split(b"\0")]
            # The wrapper exec'd the interpreter (a script, on .venv's): it is gone.
            assert micropython in words[:2] and not any("parent_death" in w for w in words)
    finally:
        busy.set()
    assert spawned, "the board spawned nothing through subprocess.Popen"
    assert all(kwargs.get("preexec_fn") is None for kwargs in spawned), spawned
    assert all(kwargs.get("umask") == 0o077 for kwargs in spawned), spawned


def test_parent_death_wrapper_runs_the_program_for_its_parent(tmp_path):
    marker = tmp_path / "ran"
    done = subprocess.run(wrapper() + [str(os.getpid()), sys.executable, "-c",
                                     "open(%r, 'w').write('yes')" % str(marker)], timeout=30)
    assert done.returncode == 0 and marker.read_text() == "yes"


def test_parent_death_wrapper_never_runs_the_program_for_a_dead_parent(tmp_path):
    # Its parent is not the process named: as when the supervisor died before
    # the signal was armed, the program must not start, unwatched.
    marker = tmp_path / "ran"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)
    done = subprocess.run(wrapper() + [str(gone.pid), sys.executable, "-c",
                                     "open(%r, 'w').write('yes')" % str(marker)], timeout=30)
    assert done.returncode == -signal.SIGKILL
    assert not marker.exists()


@pytest.mark.parametrize("argv", [[], ["notapid", "/bin/true"], ["1"]])
def test_parent_death_wrapper_refuses_a_malformed_command(argv):
    done = subprocess.run(wrapper() + argv, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stderr.startswith("usage: parent_death.py")
