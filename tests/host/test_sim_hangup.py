# A closed terminal sends SIGHUP to its session's leader alone. A shell passes
# it on to its jobs; `make sim` is killed by it and passes nothing on, which
# once left the table and its board's interpreter running with no terminal.
# make here is the session's leader, as in a terminal with no shell between.
import os
import pty
import select
import shutil
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.board,
              pytest.mark.skipif(shutil.which("make") is None, reason="no make")]


def processes_naming(text):
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(text.encode() in word for word in words):
                found.append(int(entry.name))
    return found


def read_until(master, wanted, seconds):
    seen, end = b"", time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < end:
        if select.select([master], [], [], 0.5)[0]:
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
    return seen


def test_the_table_and_its_board_end_when_the_terminal_closes_under_make(tmp_path):
    flash = tmp_path / "hangup-table.img"  # a name only this test's processes carry
    # Run from make test, this make is a sub-make: its parent's flags are not its own.
    env = {name: value for name, value in os.environ.items()
           if name not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    leader, master = pty.fork()
    if leader == 0:
        os.chdir(REPO)
        os.execvpe("make", ["make", "--no-print-directory", "sim",
                            "SIM_ARGS=--flash %s" % flash], env)
    try:
        seen = read_until(master, b"LOCK", 120)
        assert b"LOCK" in seen, seen[-2000:]
        assert processes_naming(flash.name), "no table running"
        os.close(master)  # the terminal closes
        master = None
        end = time.monotonic() + 60
        while processes_naming(flash.name) and time.monotonic() < end:
            time.sleep(0.2)
        assert processes_naming(flash.name) == [], "left running with no terminal"
    finally:
        if master is not None:
            os.close(master)
        for pid in processes_naming(flash.name):
            os.kill(pid, 9)
        os.waitpid(leader, 0)
