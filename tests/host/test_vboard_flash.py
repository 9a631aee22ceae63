# The virtual board's flash image as a thing on the host: it holds the live
# hit value, so it is the owner's only; one board at a time runs on it; an
# image that does not mount faults the controller as a bad flash does on a
# board; and a board killed however hard leaves nothing running on it.
import contextlib
import json
import os
import pty
import select
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest
from vboard_procs import alive, image_holders

from uthctl.boards.flash import FlashInUse
from uthctl.boards.virtual import VirtualBoard
from uthctl.links.board_link import Link
from uthctl.links.rig import Rig

UTHCTL = [sys.executable, "-m", "uthctl.cli"]
FAULT_DISPLAY = "FAULt"  # the LED meter's fault text (firmware/table/meter_text.py)
GONE_WAIT = 10.0  # seconds for a killed board's processes to end

# The virtual board's own image handling (umask, locks, its interpreters).
pytestmark = [pytest.mark.usefixtures("micropython"), pytest.mark.target("sim")]


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def umask_of(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("Umask:"):
            return int(line.split()[1], 8)
    raise AssertionError("no Umask for %d" % pid)


@pytest.fixture
def open_umask():
    # As most shells have it: without the fix, files come out readable by all.
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def boards():
    with contextlib.ExitStack() as stack:
        def start(flash=None, power=True):
            vb = VirtualBoard(flash=flash)
            vb.start(power=power)
            stack.callback(vb.stop)
            return vb

        yield start


def headless(flash, *extra):
    # `uthctl sim --headless` in a process group of its own, as a terminal runs it.
    return subprocess.Popen(UTHCTL + ["sim", "--headless", "--flash", str(flash), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def first_line(proc, timeout=30.0):
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "uthctl sim --headless printed nothing"
    return json.loads(proc.stdout.readline())


def ready(vb):
    # Once the controller answers, its store has made and read the image.
    with Link(vb.serial_path, timeout=10.0) as link:
        link.wait_ready(20.0)


def wait_holders(flash, supervisor, timeout=30.0):
    # The interpreter(s) with the image open, once there are some; not the
    # supervisor, which holds it open for its lock.
    deadline = time.monotonic() + timeout
    while not image_holders(flash, besides=(supervisor,)):
        assert time.monotonic() < deadline, "no interpreter opened %s" % flash
        time.sleep(0.05)
    return image_holders(flash, besides=(supervisor,))


def end(proc):
    if proc.poll() is None:
        proc.kill()
        proc.wait(5)
    proc.stdout.close()
    proc.stderr.close()


def wait_gone(flash, pids):
    # True once none of pids runs and nothing has the image open.
    deadline = time.monotonic() + GONE_WAIT
    while any(alive(pid) for pid in pids) or image_holders(flash):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill_leftovers(flash):
    for pid in image_holders(flash):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# ---- owner only ----


@pytest.mark.board
def test_vboard_flash_image_and_its_folder_are_the_owners_only(boards, tmp_path, monkeypatch,
                                                              open_umask):
    state = tmp_path / "state"  # the default path's folders do not exist yet
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    vb = boards()
    assert vb.flash == state / "uthctl" / "sim-flash.img"
    ready(vb)
    assert (mode(state), mode(state / "uthctl"), mode(vb.flash)) == (0o700, 0o700, 0o600)
    # Whatever the interpreter makes is the owner's from its first byte.
    assert umask_of(vb.state()["pid"]) == 0o077
    vb.stop()

    # An image and folder left open by an earlier version are closed at start.
    os.chmod(vb.flash, 0o644)
    os.chmod(state / "uthctl", 0o755)
    boards()
    assert (mode(state / "uthctl"), mode(vb.flash)) == (0o700, 0o600)

    # A folder the user chose is theirs to set; the image in it is made 0600.
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)
    ready(boards(mine / "flash.img"))
    assert (mode(mine), mode(mine / "flash.img")) == (0o755, 0o600)


# ---- one board on one image ----


@pytest.mark.board
def test_vboard_second_board_on_one_image_is_refused(boards, tmp_path):
    flash = tmp_path / "flash.img"
    first = boards(flash)
    ready(first)
    with pytest.raises(FlashInUse) as refused:
        boards(flash)
    assert "in use by process %d" % os.getpid() in str(refused.value)

    # `uthctl sim --headless`: one line naming the holder, exit 2, no board.
    proc = headless(flash)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        end(proc)
    assert proc.returncode == 2 and out == ""
    assert len(err.splitlines()) == 1 and "in use by process %d" % os.getpid() in err, err

    # The interactive table: the same line before any screen is drawn.
    master, slave = pty.openpty()
    try:
        table = subprocess.Popen(UTHCTL + ["sim", "--flash", str(flash)], stdin=slave,
                                 stdout=slave, stderr=slave, close_fds=True,
                                 start_new_session=True)
        os.close(slave)
        assert table.wait(30) == 2
        shown = b""
        while select.select([master], [], [], 0.5)[0]:
            try:
                shown += os.read(master, 4096)
            except OSError:
                break
    finally:
        os.close(master)
    text = shown.decode(errors="replace").strip()
    assert len(text.splitlines()) == 1 and "in use by process %d" % os.getpid() in text, text

    first.stop()  # the lock goes with its board
    ready(boards(flash))


@pytest.mark.board
def test_vboard_hard_link_to_a_running_image_is_refused(boards, tmp_path):
    # The lock is the image file's own, not a name's: another name for the
    # same file (a hard link) finds it taken.
    flash = tmp_path / "flash.img"
    ready(boards(flash))
    other = tmp_path / "other.img"
    os.link(flash, other)
    with pytest.raises(FlashInUse) as refused:
        boards(other)
    assert "in use by process %d" % os.getpid() in str(refused.value)


@pytest.mark.board
def test_vboard_leaves_no_lock_file_beside_the_image(boards, tmp_path):
    vb = boards(tmp_path / "flash.img")
    ready(vb)
    vb.stop()
    assert sorted(os.listdir(tmp_path)) == ["flash.img"]


@pytest.mark.board
def test_vboard_leaves_the_mode_of_a_file_that_is_no_image(boards, tmp_path, open_umask):
    # A path mistyped onto some other file (as root, a system file's) keeps its
    # mode, whether named, reached through a symbolic link, or named by a
    # FLASH.new link while FLASH is missing.
    other = tmp_path / "notes.txt"
    other.write_text("not a littlefs image\n" * 100)
    os.chmod(other, 0o644)
    boards(other, power=False).stop()
    link = tmp_path / "link.img"
    link.symlink_to(other)
    boards(link, power=False).stop()
    missing = tmp_path / "new.img"
    (tmp_path / "new.img.new").symlink_to(other)
    ready(boards(missing))
    assert mode(other) == 0o644 and other.read_text() == "not a littlefs image\n" * 100
    assert mode(missing) == 0o600


def test_vboard_refuses_a_flash_that_is_no_regular_file(tmp_path):
    pipe = tmp_path / "pipe.img"
    os.mkfifo(pipe, 0o644)
    with pytest.raises(OSError, match="is not a regular file"):
        VirtualBoard(flash=pipe).start(power=False)
    assert mode(pipe) == 0o644 and sorted(os.listdir(tmp_path)) == ["pipe.img"]


# ---- a flash that does not mount ----


@pytest.mark.board
def test_vboard_flash_that_does_not_mount_faults_the_controller(boards, tmp_path):
    junk = tmp_path / "junk.img"
    junk.write_bytes(b"not a littlefs image\n" * 1000)
    before = junk.read_bytes()
    vb = boards(junk, power=False)
    with Link(vb.serial_path, timeout=10.0) as link, Rig(vb.rig_address) as rig:
        vb.power(True)
        reason = link.wait_event("fault")["reason"]
        assert "does not mount" in reason and str(junk) in reason, reason
        assert link.wait_event("started")["state"] == "fault"
        status = link.command("status")
        assert (status["state"], status["fault"]) == ("fault", reason)
        rig.wait_for(lambda s: s["display"] == FAULT_DISPLAY, what="the fault on the display")
        rig.press_lock()  # play is refused: nothing is written
        assert link.command("status")["state"] == "fault"
    assert vb.wait_started() == {"state": "fault", "fault": reason}
    vb.stop()
    assert junk.read_bytes() == before  # never reformatted

    proc = headless(junk)
    try:
        line = first_line(proc)
        assert (line["state"], line["fault"]) == ("fault", reason)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        end(proc)


def test_vboard_folder_as_flash_is_refused(tmp_path):
    proc = headless(tmp_path)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        end(proc)
    assert proc.returncode == 2 and out == ""
    assert len(err.splitlines()) == 1 and "is a folder" in err, err
    assert os.listdir(tmp_path) == []


# ---- nothing outlives a killed board ----


@pytest.mark.board
def test_vboard_killed_headless_board_leaves_nothing_running(tmp_path):
    flash = tmp_path / "flash.img"
    proc = headless(flash)
    try:
        first_line(proc)
        interpreters = wait_holders(flash, proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)  # a closed terminal, a power cut
        proc.wait(10)
        assert wait_gone(flash, interpreters), "the interpreter outlived its supervisor"
    finally:
        end(proc)
        kill_leftovers(flash)

    # Nothing of the old board is left: a new one takes the same image.
    proc = headless(flash)
    try:
        first_line(proc)
        interpreters = wait_holders(flash, proc.pid)
        os.kill(proc.pid, signal.SIGKILL)  # the supervisor alone
        proc.wait(10)
        assert wait_gone(flash, interpreters), "the interpreter outlived its supervisor"
    finally:
        end(proc)
        kill_leftovers(flash)


@pytest.mark.board
def test_vboard_interpreter_outlives_the_thread_that_started_its_board(boards, tmp_path):
    # The parent-death signal follows the spawning thread: the supervisor's
    # own I/O thread spawns, so a caller's short-lived thread takes nothing.
    flash = tmp_path / "flash.img"
    started = []
    caller = threading.Thread(target=lambda: started.append(boards(flash)))
    caller.start()
    caller.join(30)
    (vb,) = started
    ready(vb)  # the thread is gone: a death signal tied to it has struck by now
    state = vb.state()
    assert state["boots"] == 1 and alive(state["pid"]), state
