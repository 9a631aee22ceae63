# The host's rig client on a serial port (links/rig_transport.py), against
# the rig firmware's own protocol (boards/rig_pico/rig_protocol.py) on fake
# pins, served over a pty as a rig Pico's USB serial would carry it: what a
# board prints besides replies is skipped, its REPL is named at once, a silent
# port is a plain timeout; and `uthctl rig --port` prints the rig's state.
import json
import os
import signal
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest

from uthctl import cli
from uthctl.links.rig import Rig, RigError, open_rig
from uthctl.links.rig_transport import SerialTransport, SocketTransport

RIG_DIR = Path(__file__).resolve().parents[2] / "boards" / "rig_pico"
SEATS = 7
NAMES = tuple("bet%d" % n for n in range(1, SEATS + 1)) + tuple(
    "uth%d" % n for n in range(1, SEATS + 1)) + ("lock", "key", "door")


class Pin:
    def __init__(self, level=0):
        self.level = level

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level


class FakeRigPico(threading.Thread):
    # The rig's protocol behind a pty; `before` is what the board prints
    # ahead of each reply (a banner, a REPL's echo); None answers nothing.
    def __init__(self, before=b"", answer=True, sleep_ms=lambda ms: None):
        super().__init__(daemon=True)
        sys.path.insert(0, str(RIG_DIR))
        try:
            from rig_protocol import RigPins
        finally:
            sys.path.remove(str(RIG_DIR))
        self.drives = {name: Pin() for name in NAMES}
        self.jackpot = [Pin() for _ in range(SEATS)]
        self.pins = RigPins(self.drives, [Pin() for _ in range(SEATS)], self.jackpot,
                            sleep_ms, run=Pin(), power=Pin())
        self.before, self.answer = before, answer
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.port = os.ttyname(slave)
        self.slave = slave
        self.start()

    def run(self):
        buffer = b""
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:  # every slave end closed (close() below): the board is gone
                os.close(self.master)
                return
            *lines, buffer = (buffer + data).split(b"\n")
            for line in lines:
                reply = self.pins.handle(line)
                if reply is not None and self.answer:
                    os.write(self.master, self.before + json.dumps(reply).encode() + b"\r\n")

    def close(self):
        # The thread closes its own master once the pty hangs up, so a later
        # pty cannot take that descriptor's number while the thread reads it.
        os.close(self.slave)
        self.join(5)
        assert not self.is_alive()


@pytest.fixture
def board():
    boards = []

    def make(**options):
        boards.append(FakeRigPico(**options))
        return boards[-1]

    yield make
    for made in boards:
        made.close()


def test_set_and_state_over_a_serial_port(board):
    pico = board()
    pico.jackpot[3].level = 1
    with Rig(port=pico.port, timeout=5.0) as rig:
        assert rig.chip(2, True)["applied"] is True
        state = rig.state()
    assert pico.drives["bet2"].level == 1
    assert state["jackpot_lights"] == [0, 0, 0, 1, 0, 0, 0] and state["inputs"]["bet2"] == 1


def killed_mid_press(board, hold_ms):
    # A rig Pico whose client, in another process, is killed while the rig
    # holds its LOCK press of hold_ms.
    pico = board(sleep_ms=lambda ms: time.sleep(ms / 1000))
    code = ("import sys; from uthctl.links.rig import Rig; "
            "Rig(port=sys.argv[1], timeout=30.0).press_lock(%d)" % hold_ms)
    client = subprocess.Popen([sys.executable, "-c", code, pico.port])
    try:
        deadline = time.monotonic() + 30.0
        while not pico.drives["lock"].level:
            assert time.monotonic() < deadline and client.poll() is None, "never pressed"
            time.sleep(0.01)
    finally:
        client.send_signal(signal.SIGKILL)
        client.wait()
    return pico


def test_a_client_killed_mid_press_leaves_the_rig_picos_pin_released(board):
    # The rig firmware holds the press itself; the host's process dies in it.
    pico = killed_mid_press(board, 3000)
    deadline = time.monotonic() + 10.0
    while pico.drives["lock"].level:
        assert time.monotonic() < deadline, "LOCK left held"
        time.sleep(0.05)


def test_the_next_client_passes_over_an_answer_left_for_a_killed_one(board):
    # The next client asks while the killed one's press is still held: the
    # rig answers in order, the press (to a client no longer there) before
    # the ping, and the next client, whose request names its id, passes over
    # the answer naming another.
    pico = killed_mid_press(board, 2000)
    with Rig(port=pico.port, timeout=5.0) as rig:
        assert pico.drives["lock"].level  # still pressed: its answer is still to come
        assert rig.request(op="ping") == {"ok": True, "reply": "pong", "rig": "rig_pico"}
        assert rig.state()["inputs"]["lock"] == 0


def test_what_the_board_prints_besides_a_reply_is_skipped(board):
    pico = board(before=b"MicroPython v1.28.0 on 2026-01-01; Raspberry Pi Pico\r\n\r\n")
    with Rig(port=pico.port, timeout=5.0) as rig:
        assert rig.request(op="ping")["reply"] == "pong"


def test_a_rig_at_its_repl_is_named_with_the_way_back(board):
    pico = board(before=b'>>> {"op": "ping"}\r\n')
    with Rig(port=pico.port, timeout=5.0) as rig:
        with pytest.raises(RigError, match="prompt.*mpremote connect %s reset" % pico.port):
            rig.request(op="ping")


def test_a_silent_port_is_a_timeout_and_a_missing_one_a_plain_error(board):
    pico = board(answer=False)
    with Rig(port=pico.port, timeout=0.5) as rig:
        with pytest.raises(RigError, match="no answer from .* within 0.5 s"):
            rig.state()
    with pytest.raises(RigError, match="cannot open the rig's port /nonexistent/tty"):
        Rig(port="/nonexistent/tty")


def test_open_rig_takes_an_address_or_a_device(board, monkeypatch):
    pico = board()
    with open_rig(pico.port) as rig:
        assert isinstance(rig.transport, SerialTransport) and rig.sock is None
    opened = []
    def fake_connect(self, address, timeout):
        opened.append((address, timeout))
        self.address = address

    monkeypatch.setattr(SocketTransport, "__init__", fake_connect)
    monkeypatch.setattr(SocketTransport, "close", lambda self: None)
    for address in ("127.0.0.1:4242", "4242"):
        with open_rig(address, timeout=2.0) as rig:
            assert isinstance(rig.transport, SocketTransport)
    assert opened == [("127.0.0.1:4242", 2.0), ("4242", 2.0)]


def test_uthctl_rig_port_prints_the_rig_picos_state(board, capsys):
    pico = board()
    assert cli.main(["rig", "--port", pico.port, "lock", "--hold", "0"]) == 0
    pico.jackpot[0].level = 1
    assert cli.main(["rig", "--port", pico.port, "key", "on"]) == 0
    assert cli.main(["rig", "--port", pico.port, "state"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "display        -" in lines and "jackpot lights 1" in lines
    assert "lock 0  key 1" in lines  # LOCK pressed and released, the key held
    assert "board          a rig Pico's wires, power on" in lines
