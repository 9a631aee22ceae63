# A controller stopped at MicroPython's REPL, as a technician's service
# leaves a board (the key held, `uthctl repl`, then `mpremote connect PTY
# resume exec ...`, which leaves with Ctrl-B): the host tools say so, with
# the way back, and the interactive table's link stops sending polls the REPL
# would echo. No byte alone stops the controller (test_port_sealed.py).
import contextlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pico_target import to_repl

from uthctl.cli import main as uthctl
from uthctl.links.board_link import AtReplError, Link, LinkError
from uthctl.tui.board_feed import BoardFeed
from uthctl.tui.hands import Hands

MPREMOTE = Path(sys.executable).parent / "mpremote"
ECHO = '{"cmd": '  # how every host command line starts, echoed by the REPL

pytestmark = pytest.mark.usefixtures("micropython")


@pytest.fixture
def board(tmp_path, target):
    with contextlib.ExitStack() as stack:
        vb = target.board(tmp_path / "flash.img", power=False)
        stack.callback(vb.stop)
        vb.power(True)
        with target.link(vb.serial_path) as link:  # the ESP32's waits for `started`
            link.wait_ready(20.0)
        yield vb


def mpremote(vb, *args, timeout=60.0):
    done = subprocess.run([str(MPREMOTE), "connect", vb.serial_path, *args],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout


def stop_at_the_repl(vb, target):
    to_repl(vb, timeout=target.wait(10.0))
    assert mpremote(vb, "resume", "exec", "print(1)").strip() == "1"


@pytest.mark.pico_quick
def test_meters_says_the_board_is_at_the_repl_and_the_way_back(board, capsys, target):
    assert uthctl(["meters", "--port", board.serial_path, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["phase"] == "unconfigured"
    stop_at_the_repl(board, target)
    assert uthctl(["meters", "--port", board.serial_path, "--timeout", "10", "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    # Seen while the link waits, not at its timeout: it names the REPL only
    # then (board_link.py's _check_repl); at the timeout it says "no reply ...
    # within". How soon is a figure of make bench (bench/link_answers.py).
    assert "is at the MicroPython REPL" in error and "its controller is stopped" in error
    assert "no reply" not in error
    way_back = "mpremote connect %s reset" % board.serial_path
    assert "`%s` starts it again" % way_back in error
    # The text form, one line; then the way back, as written, works.
    assert uthctl(["meters", "--port", board.serial_path]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and way_back in err
    resets = board.state().get("resets")  # the emulated ESP32's supervisor counts them
    mpremote(board, "reset", timeout=target.wait(60.0))  # over an emulated chip's slow UART
    if resets is not None:
        # Its fresh QEMU first: until then the controller's `started` from before
        # the reset stands, and pings would reach the chip while it boots.
        deadline = time.monotonic() + target.wait(10.0)
        while board.state()["resets"] == resets:
            assert time.monotonic() < deadline, "no reset seen"
            time.sleep(0.1)
    with target.link(board.serial_path) as link:
        link.wait_ready(20.0)
    assert uthctl(["meters", "--port", board.serial_path, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["phase"] == "unconfigured"


def test_rig_state_does_not_call_a_stopped_board_running(board, capsys, target):
    stop_at_the_repl(board, target)
    assert uthctl(["rig", "--sim", board.rig_address, "state"]) == 0
    text = capsys.readouterr().out
    board_line = next(line for line in text.splitlines() if line.startswith("board "))
    assert "running" not in board_line and "pins wired" in board_line
    assert "uthctl meters --port" in text


def _echoes(host, seen):
    # Lines the REPL echoed, from the host link's inbox, added to `seen`.
    while host.inbox:
        kind, item = host.inbox.popleft()
        if kind == "line" and ECHO in item:
            seen.append((time.monotonic(), item))
    return seen


def test_the_tables_link_stops_polling_at_the_repl_until_reset(board, target):
    stop_at_the_repl(board, target)
    link = Link(board.serial_path, timeout=3.0)
    host = BoardFeed(link)
    said = []
    hands = Hands(None, host, lambda text, style: said.append(text))
    host.start()
    hands.start()
    try:
        echoes = []
        deadline = time.monotonic() + target.wait(10.0)
        while not _echoes(host, echoes) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert echoes, "the REPL echoed no poll"
        # Polls already on their way are echoed too; after them, none for 6 s:
        # twelve poll periods, and twice the 3 s a poll waits for its reply.
        time.sleep(1.5)
        before = len(_echoes(host, echoes))
        time.sleep(6.0)
        assert len(_echoes(host, echoes)) == before, echoes
        assert "prompt" in host.at_repl or "echo" in host.at_repl
        # Refused before it is sent: this is the feed's own refusal, not the
        # "no reply ... within" its wait for an answer would end in.
        with pytest.raises(LinkError, match=r"^the board is at its REPL \(.*\): its "
                           "controller is stopped; r resets the board$"):
            host.command("status")
        # The table's reset key: a power cycle, and the controller answers again.
        done = threading.Event()
        hands.do(lambda: (hands.reset_board(board), done.set()))
        assert done.wait(target.wait(20.0))
        deadline = time.monotonic() + max(target.wait(20.0), target.boot_wait)
        while (host.status or {}).get("state") != "unconfigured" or host.at_repl:
            assert time.monotonic() < deadline, (host.status, host.at_repl)
            time.sleep(0.05)
        assert host.command("ping")["ok"] is True
        assert any("board reset" in text for text in said)
    finally:
        hands.stop()
        host.stop()
        hands.join(3.0)
        host.join(3.0)
        link.close()


def test_the_raw_repl_is_named_too(board, capsys, target):
    # At the REPL handed over, Ctrl-C and Ctrl-A enter the raw REPL (as
    # mpremote does first): its banner names it. A link opened later sees
    # nothing, as the raw REPL echoes nothing; its timeout still gives the way back.
    to_repl(board, timeout=target.wait(10.0))
    with Link(board.serial_path, timeout=10.0) as link:
        link.write(b"\x03")
        link.write(b"\x01")
        # The banner named is the link's AtReplError, raised while it still
        # waits; its timeout would say "no reply ... within".
        with pytest.raises(AtReplError, match="raw REPL banner") as raised:
            link.command("meters")
        assert "mpremote connect %s reset" % board.serial_path in str(raised.value)
    assert uthctl(["meters", "--port", board.serial_path, "--timeout", "1", "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert "a board at its raw REPL stays silent" in error
    assert "`mpremote connect %s reset` starts it again" % board.serial_path in error
