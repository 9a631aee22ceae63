# uthctl monitor against a running board, through a cable (cable.py) that
# keeps every byte the monitor sends: the events of rounds played on the rig
# appear as they come, it lives through a reset, a power cycle and a cable
# pulled, it sends nothing unless --poll asks, and Ctrl-C ends it with exit 0.
# A $1 chip at 2% (A1, 653b.1(c)(4)) adds 2 cents to the $100 meter.
import contextlib
import json
import signal
import subprocess
import threading
import time

import pytest
from cable import Cable

from terminal_argv import UTHCTL_AS_FROM_A_TERMINAL
from uthctl.boards.max7219_model import reading
from uthctl.cli import main as uthctl
from uthctl.links.rig import lit

PER_SEAT = 2 * 10_000  # micro-dollars
A1_MINIMUM = 100 * 1_000_000

pytestmark = pytest.mark.usefixtures("micropython")


class Output:
    # A child's output stream, read as it comes into a list of lines.
    def __init__(self, stream):
        self.lines = []
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, predicate, timeout, what, count=1):
        # The lines that match, once there are `count` of them.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in list(self.lines) if predicate(line)]
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError("no line with %s within %.0f s; got %r" % (what, timeout,
                                                                        self.lines))


class Monitor:
    def __init__(self, port, *extra):
        # As from a terminal (terminal_argv.py), so Ctrl-C reaches it however the run began.
        self.process = subprocess.Popen(
            [*UTHCTL_AS_FROM_A_TERMINAL, "monitor", "--port", port, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out, self.err = Output(self.process.stdout), Output(self.process.stderr)

    def interrupt(self):
        # Ctrl-C, as a terminal sends it: the exit status.
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(20)
        self.out.thread.join(5)
        self.err.thread.join(5)
        return code

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture
def table(tmp_path, target, capsys):
    with contextlib.ExitStack() as stack:
        vb = target.board(tmp_path / "flash.img")
        stack.callback(vb.stop)
        rig = stack.enter_context(target.rig(vb.rig_address))
        with target.link(vb.serial_path) as link:
            link.wait_ready(20.0)
        rig.key(True)  # service mode: the configuration
        rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service")
        timeout = "%g" % target.wait(5.0)
        assert uthctl(["config", "A1", "--yes", "--port", vb.serial_path, "--timeout",
                       timeout]) == 0
        rig.key(False)
        rig.wait_for(lambda s: reading(s["display"]) not in (None, reading("SErvICE")),
                     what="play")
        cable = Cable(vb.serial_path, tmp_path)
        stack.callback(cable.close)
        table = Table(vb, rig, cable, target)
        stack.callback(table.stop_monitors)
        capsys.readouterr()
        yield table


class Table:
    def __init__(self, vb, rig, cable, target):
        self.vb, self.rig, self.cable, self.target = vb, rig, cable, target
        self.monitors = []

    def monitor(self, *extra):
        monitor = Monitor(self.cable.path, *extra)
        self.monitors.append(monitor)
        monitor.err.wait_for(lambda line: "listening on" in line, self.wait(20), "listening")
        return monitor

    def stop_monitors(self):
        for monitor in self.monitors:
            monitor.stop()

    def wait(self, seconds):
        return self.target.wait(seconds)

    def play_round(self, seats):
        for seat in seats:
            self.rig.chip(seat, True)
        self.rig.wait_for(lambda s: lit(s["bet_lights"]) == sorted(seats), what="bet lights")
        self.rig.press_lock()
        for seat in seats:
            self.rig.chip(seat, False)
        self.rig.wait_for(lambda s: lit(s["bet_lights"]) == [], what="the round's end")


def _host_time(line):
    # The event as the board sent it, and the host's time the monitor added.
    body, _, stamp = line.rpartition(', "host_time": "')
    assert stamp.endswith('"}') and stamp[:-2].endswith("Z"), line
    return json.loads(body + "}"), stamp[:-2]


@pytest.mark.pico_quick
def test_monitor_prints_each_event_as_received_and_sends_nothing(table):
    monitor = table.monitor("--json")
    table.play_round((1, 2))
    lines = monitor.out.wait_for(lambda line: '"contribution"' in line and '"seat": 2' in line,
                                 table.wait(10), "seat 2's contribution")
    assert monitor.interrupt() == 0
    events = [_host_time(line)[0] for line in monitor.out.lines]
    assert [event["ev"] for event in events] == ["locked", "contribution", "contribution"]
    assert events[0]["round"] == 1 and events[0]["meter"] == A1_MINIMUM + 2 * PER_SEAT
    assert [(e["seat"], e["wager"], e["amount"]) for e in events[1:]] == [
        (1, 100, PER_SEAT), (2, 100, PER_SEAT)]
    assert lines and table.cable.sent == b""  # not a byte: no command, no Ctrl-C
    assert not any("Traceback" in line for line in monitor.err.lines)


def test_monitor_lives_through_a_reset_and_a_power_cycle(table):
    monitor = table.monitor()
    table.play_round((3,))
    monitor.out.wait_for(lambda line: "round 1 locked, meter $100.02" in line,
                         table.wait(10), "round 1")
    table.rig.reset()
    monitor.err.wait_for(lambda line: "controller started" in line,
                         table.target.boot_wait, "the restart noted")
    table.play_round((3,))
    monitor.out.wait_for(lambda line: "round 2 locked, meter $100.04" in line,
                         table.wait(10), "round 2")
    table.rig.power(False)
    table.rig.power(True)
    monitor.err.wait_for(lambda line: "controller started" in line,
                         table.target.boot_wait, "the power-on noted",
                         count=2)
    table.play_round((4, 5))
    monitor.out.wait_for(lambda line: "seat 5: $1.00 wager contributes $0.02" in line,
                         table.wait(10),
                         "round 3's contributions")
    assert monitor.interrupt() == 0
    out = monitor.out.lines
    assert sum("controller started: betting" in line for line in out) == 2
    assert sum("the board's controller started" in line for line in monitor.err.lines) == 2
    assert any("round 3 locked, meter $100.08" in line for line in out)
    assert table.cable.sent == b""


def test_monitor_reopens_a_port_that_vanished(table):
    monitor = table.monitor()
    table.play_round((1,))
    monitor.out.wait_for(lambda line: "round 1 locked" in line, table.wait(10), "round 1")
    table.cable.pull()
    monitor.err.wait_for(lambda line: "link lost" in line, table.wait(10), "the loss")
    table.play_round((2,))  # unplugged: its events are lost
    table.cable.plug()
    monitor.err.wait_for(lambda line: "link back" in line, table.wait(10), "the reconnection")
    table.play_round((6,))
    monitor.out.wait_for(lambda line: "round 3 locked, meter $100.06" in line,
                         table.wait(10), "round 3")
    assert monitor.interrupt() == 0
    assert not any("round 2 locked" in line for line in monitor.out.lines)
    lost = [line for line in monitor.err.lines if "link lost" in line]
    assert len(lost) == 1 and table.cable.path in lost[0] and "every 0.5 s" in lost[0]
    assert table.cable.sent == b""


def test_monitor_ends_when_its_board_does_not_come_back(table):
    # A port gone for good (a board unplugged, a pty whose board ended) ends
    # the monitor, saying so, instead of waiting for whatever comes next there.
    monitor = table.monitor("--reopen-for", "1.5")
    table.cable.pull()
    assert monitor.process.wait(30) == 2
    monitor.err.thread.join(5)
    said = "\n".join(monitor.err.lines)
    assert "reopening every 0.5 s for 1.5 s" in said
    assert "did not come back within 1.5 s: the monitor ends" in said


def test_monitor_takes_no_other_boards_io_behind_its_path(monkeypatch):
    # A USB port that comes back with another board's serial number is not
    # the board given: the monitor ends rather than listen to it.
    from uthctl.commands import monitor as monitor_command
    from uthctl.links import ports

    listed = [_Port("/dev/ttyACM0", 0x2E8A, 0x0005, "E6614C311B1A2F35")]
    monkeypatch.setattr(ports, "comports", lambda: listed)
    watch = monitor_command.Monitor("/dev/ttyACM0", False, None, 5.0)
    watch.device = "/dev/ttyACM0"
    watch.board = ports.usb_serial("/dev/ttyACM0")
    assert watch.board == (0x2E8A, 0x0005, "E6614C311B1A2F35")
    watch.check_same_board()  # the same board: nothing said
    listed[0] = _Port("/dev/ttyACM0", 0x2E8A, 0x0005, "E66038B7133C7A2E")
    with pytest.raises(OSError, match="another board is at /dev/ttyACM0 now .USB 2e8a:0005 "
                       "serial E66038B7133C7A2E, was 2e8a:0005 serial E6614C311B1A2F35."):
        watch.check_same_board()
    assert ports.usb_serial("/dev/pts/7") is None  # a pty has no identity to hold


class _Port:
    def __init__(self, device, vid, pid, serial_number):
        self.device, self.vid, self.pid, self.serial_number = device, vid, pid, serial_number


def test_monitor_polls_the_table_only_when_asked(table, capsys):
    table.rig.chip(4, True)
    table.rig.wait_for(lambda s: lit(s["bet_lights"]) == [4], what="bet light 4")
    table.rig.press_lock()
    monitor = table.monitor("--json", "--poll", "0.3")
    polls = monitor.out.wait_for(lambda line: '"poll"' in line, table.wait(10), "a poll")
    # The port is the monitor's: another command on it is refused, not raced.
    assert uthctl(["status", "--port", table.cable.path]) == 2
    assert "another program holds it" in capsys.readouterr().err
    assert monitor.interrupt() == 0
    polled, _ = _host_time(polls[0])
    assert polled["status"]["state"] == "locked" and polled["status"]["locked_in"] == [4]
    assert polled["status"]["lights"] == {"bet": [4], "jackpot": []}  # as the rig read them
    assert polled["meters"]["meter"] == A1_MINIMUM + PER_SEAT
    sent = [json.loads(line) for line in table.cable.sent.decode().splitlines()]
    assert sent and {command["cmd"] for command in sent} == {"status", "meters"}
    assert b"\x03" not in table.cable.sent
