# Outside service mode the board's port speaks only the host link
# (docs/host-link.md, "Control bytes"): on every target, the virtual board,
# the emulated Pico's project image and the emulated ESP32's official one
# (`--target esp32`), no control byte a host sends stops the controller or
# reaches the REPL: Ctrl-C, Ctrl-A (raw REPL), Ctrl-E (paste mode), Ctrl-B,
# Ctrl-D, alone, inside a line, as mpremote opens a board, or during a log
# export. A line holding one is refused (a byte alone, as a partial line
# dropped after half a second); the next command is answered.
# With the key held, `uthctl repl` hands the port to the REPL, for mpremote,
# after a `repl` record, and the hit value is redrawn before the next round.
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_board import configured

from uthctl.links import logexport

MPREMOTE = Path(sys.executable).parent / "mpremote"
# Each control byte alone, inside a command, before one, after one, and as
# mpremote opens a board (Ctrl-C twice, Ctrl-A, then Ctrl-D's soft reset).
SENT = [b"\x03", b"\x01", b"\x05", b"\x02", b"\x04",
        b'{"cmd": "pi\x03ng"}\r\n', b'\x01{"cmd": "ping"}\r\n', b'{"cmd": "ping"}\x05\r\n',
        b"\x02\x04\r\n", b"\r\x03\x03", b"\x01", b"\x04"]


def _partial_line_dropped(link, target):
    # A control byte with no line end after it is a partial line, which the
    # board drops after half a second of silence, saying so (no id: it was no command).
    deadline = target.wait(10.0)
    while True:
        message = link.read_message(deadline)
        assert message is not None, "no partial line dropped"
        if message.get("ok") is False and "id" not in message:
            assert message["error"].startswith("partial line dropped"), message
            return


def _answers(link, target):
    reply = link.command("ping", timeout=target.wait(10.0))
    assert reply["ok"] and reply["reply"] == "pong", reply
    assert link.at_repl is None, link.at_repl


@pytest.mark.pico_quick
def test_no_control_byte_stops_the_controller(cli_table, capsys, target):
    table = cli_table
    configured(table, capsys)
    with target.link(table.port, timeout=10.0) as link:
        before = link.command("meters")["meters"]
        for data in SENT:
            link.write(data)
            if not data.endswith(b"\n"):
                _partial_line_dropped(link, target)
            _answers(link, target)
        # During a log export: the bytes come while its records go out.
        link.write(b'{"cmd": "log", "id": "export"}\r\n\x03\x01\x05\x02\x04\r\n')
        _answers(link, target)
        status = link.command("status")
        after = link.command("meters")["meters"]
    assert status["state"] == "betting", status
    assert (after["cycle"], after["config"], after["log_seq"]) == \
        (before["cycle"], "A1", before["log_seq"])
    # The controller still plays: a round locks.
    table.play_round([2])
    assert table.run(capsys, "meters", "--json")["round"] == before["round"] + 1


def _mpremote(port, target, *args):
    # Waits as an emulated chip's slow UART needs (the ESP32's: minutes).
    done = subprocess.run([str(MPREMOTE), "connect", port, *args], capture_output=True,
                          text=True, timeout=target.wait(60.0))
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def _restarted(table, before, target):
    # After `mpremote reset`: the supervisor's next power-on (the emulated
    # ESP32's: its count of resets, a fresh QEMU), then the controller's answer.
    deadline = time.monotonic() + max(target.wait(20.0), target.boot_wait)
    while True:
        state = table.vb.state()
        if "resets" in before:
            done = state["resets"] != before["resets"]
        else:
            done = state["boots"] > before["boots"] and state["powered"]
        if done:
            break
        assert time.monotonic() < deadline, "no restart after mpremote reset"
        time.sleep(0.1)
    with target.link(table.port) as link:
        link.wait_ready(20.0)


@pytest.mark.pico_quick
def test_the_repl_is_handed_over_with_the_key_held_logged_and_its_value_redrawn(
        cli_table, capsys, target):
    table = cli_table
    configured(table, capsys)
    commitment = table.run(capsys, "status", "--json")["status"]["commitment"]
    refused = table.run(capsys, "repl", code=2)
    assert "service mode" in refused and "betting" in refused, refused
    table.key(True)
    handed = table.run(capsys, "repl", "--json")
    table.rig.key(False)  # (the controller no longer reads it)
    # after config, reset, service mode left and entered again
    assert (handed["seq"], handed["exposed"]) == (5, True), handed
    # mpremote's own commands at the REPL, as a technician services the board.
    assert _mpremote(table.port, target, "resume", "exec", "print(6 * 7)").strip() == "42"
    _mpremote(table.port, target, "resume", "fs", "ls", ":/")  # (its exit status checked)
    before = table.vb.state()
    # The way back, a hard reset. `resume` first, as the technician's other
    # commands: without it mpremote soft-resets the board before the reset
    # (docs/host-link.md, "The REPL").
    _mpremote(table.port, target, "resume", "reset")
    _restarted(table, before, target)

    status = table.run(capsys, "status", "--json")["status"]
    assert status["exposed"] is True, status
    round_before = status["round"]
    table.rig.chip(2, True)
    table.rig.press_lock()  # refused: the value counts as exposed
    table.rig.chip(2, False)
    assert table.run(capsys, "meters", "--json")["round"] == round_before
    table.key(True)
    with target.link(table.port, timeout=10.0) as link:
        redraw = link.command("redraw", timeout=target.wait(10.0))
    table.key(False)
    assert redraw["ok"] and redraw["commitment"] != commitment, redraw
    table.play_round([2])
    with target.link(table.port, timeout=10.0) as link:
        records, _ = logexport.export(link)
    # The restart after the REPL is a `start` record. Service mode entered
    # and left are records of their own (the first entry, on a new board,
    # goes out alone; the key's release after `repl` may be read before the
    # port is handed over, or not at all): checked apart.
    kinds = [r["ev"] for r in records]
    assert [k for k in kinds if k != "service"] == ["config", "reset", "repl", "start",
                                                    "redraw", "round"], records
    assert kinds[:5] == ["config", "reset", "service", "service", "repl"], records
    repl = records[4]
    assert repl["exposed"] is True and repl["cycle"] == 1, repl
