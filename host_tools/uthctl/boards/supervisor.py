# What the virtual board (virtual.py) and the emulated Pico (pico.py) share:
# a supervisor that runs a board's process behind a pseudo-terminal and a rig
# port, with a real board's face, so a host tool or a test drives either the
# same way.
#
#   host (mpremote, pyserial, uthctl) <-> pty  ==relay==  the board's process
#
# `serial_path` is the pty's slave and lives as long as the supervisor. One
# thread, the I/O thread, runs every descriptor through a selector; other
# threads ask it (power, reset, state). The board's process dies with that
# thread (Linux: a parent-death signal, armed by parent_death.py before the
# command is exec'd).
#
# The rig port, how a rig reaches the board's pins, is rig_port.py's.
import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from .flash import take_flash
from .rig_port import LINE_MAX, Conn, RigPort, listen

RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
FRIENDLY_BANNER = b'Type "help()"'
PARENT_DEATH = Path(__file__).with_name("parent_death.py")
_HOST_STALL = 1.0  # host not reading this long: output beyond the pty's buffer is dropped


def spawn_with_parent_death(command, **popen):
    # subprocess.Popen(command, **popen), its process killed when the calling
    # thread ends (Linux). No preexec_fn, unsafe in a process with threads:
    # the process starts as a small Python wrapper (parent_death.py) that
    # arms the signal, checks its parent is still this process, then execs
    # the command.
    wrapped = [sys.executable, "-I", "-S", str(PARENT_DEATH), str(os.getpid())]
    return subprocess.Popen(wrapped + list(command), **popen)


def kill_and_reap(proc):
    # A board's process ended at once, as a power cut ends a board, and
    # waited for so no zombie is left; one that will not die is left to its
    # parent-death signal.
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass


def write_some(fd, data):
    # Writes what the descriptor takes now and gives back the rest; nothing
    # after an error other than a full buffer (the other end is gone).
    while data:
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            return data
        except OSError:
            return b""
        data = data[written:]
    return data


def _boot_event(line):
    # A "started" or "fault" event line from the controller, else None.
    if not (line.startswith(b"{") and (b'"started"' in line or b'"fault"' in line)):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if isinstance(event, dict) and event.get("ev") in ("started", "fault"):
        return event
    return None


class Supervisor(RigPort):
    # A board's supervisor. A subclass names itself (title), makes its image
    # (_make_image), opens its ports (_open), runs its process (_power_on,
    # _power_off, _kill, _check_exit), relays its serial link (_board_fd,
    # _from_board, _read_host, _feed_board), reports its pins (_state) and applies a level
    # (_check_pin, _wired, _send_level).
    title = "board"
    # A call the I/O thread has not taken up in this long is a hung supervisor;
    # a host loaded many times over its cores has kept a sound one 10 s away.
    _CALL_TIMEOUT = 30.0
    _START_TIMEOUT = 20.0
    _START_POLL = 0.02

    def __init__(self, flash, stderr):
        self.flash = flash
        self.stderr = stderr  # where supervisor faults are reported, default sys.stderr
        self.serial_path = None
        self.rig_address = None
        self.failure = None
        self._thread = None
        self._flash_lock = None
        self._stopping = False
        self._requests = []  # (callable, event, result box) run by the I/O thread
        self._lock = threading.Lock()

    # ---- life cycle (any thread) ----

    def start(self, power=True):
        # FlashInUse when another board runs on the image; OSError when the
        # image cannot be used at all (a folder, say).
        self._prepare_flash()
        self._flash_lock = take_flash(self.flash, self._make_image)
        try:
            self._check_flash()
            self._open()
        except BaseException:
            os.close(self._flash_lock)
            self._flash_lock = None
            raise
        if power:
            self.power(True)
        return self

    def _check_flash(self):
        pass  # a board whose image has a fixed size checks it here

    def _start_io(self, name, host_fd, serial_path, watch=()):
        # The rig listener, the wake socket, and the I/O thread watching them,
        # the host's pty (host_fd, its master) and `watch` ((file, tag) pairs)
        # through one selector.
        self._host_fd = host_fd
        self.serial_path = serial_path
        self._rig_listener = listen()
        self.rig_address = "127.0.0.1:%d" % self._rig_listener.getsockname()[1]
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._reset_state()
        self._selector = selectors.DefaultSelector()
        for fileobj, tag in [(host_fd, "host_in"), (self._rig_listener, "rig_accept"),
                             (self._wake_r, "wake")] + list(watch):
            self._selector.register(fileobj, selectors.EVENT_READ, tag)
        # Every board process is spawned from this thread: it dies with it.
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def stop(self, timeout=5.0):
        # Kill the board's process, close every descriptor, let the image go;
        # safe to call twice.
        if self._thread is None:
            return
        self._stopping = True
        self._wake()
        self._thread.join(timeout)
        self._thread = None
        self._kill()
        for conn in list(self._conns):
            conn.sock.close()
        for sock in self._listeners() + [self._rig_listener, self._wake_r, self._wake_w]:
            sock.close()
        self._selector.close()
        for fd in self._ptys():
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._workdir, ignore_errors=True)
        os.close(self._flash_lock)
        self._flash_lock = None

    def _listeners(self):
        return []  # a board's listeners besides the rig's

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def alive(self):
        return self._thread is not None and self._thread.is_alive()

    def power(self, on):
        # Power on runs main.py; power off is a cut at any instant.
        return self._call(self._power_on if on else self._power_off)

    def reset(self):
        # A hard reset: power off, then on.
        return self._call(self._hard_reset)

    def state(self):
        return self._call(self._state)

    def wait_started(self, timeout=None):
        # How the board came up since its last power-on or reset: {"state":
        # the controller's state from its "started" event ("fault" when the
        # store did not come up), or "repl" when main.py ended at the REPL
        # without starting it; "fault": the reason of a fault event or None}.
        # "state" is None when neither came within timeout.
        deadline = time.monotonic() + (self._START_TIMEOUT if timeout is None else timeout)
        while True:
            came = self._call(lambda: dict(self._came_up))
            if came["state"] is not None or time.monotonic() > deadline:
                return came
            time.sleep(self._START_POLL)

    def _log_tail(self):
        # The last of the board process's own log (_LOG, in the work folder), for a report.
        try:
            with open(os.path.join(self._workdir, self._LOG), "rb") as log:
                return log.read()[-2000:].decode(errors="replace")
        except OSError:
            return "(none)"

    def _report(self, text):
        print("uthctl %s: %s" % (self._NAME, text), file=self.stderr or sys.stderr)

    def _call(self, function):
        if not self.alive():
            raise OSError("the %s's supervisor is not running (%s)"
                          % (self.title, self.failure or "stopped"))
        done = threading.Event()
        box = []
        with self._lock:
            self._requests.append((function, done, box))
        self._wake()
        if not done.wait(self._CALL_TIMEOUT):
            raise TimeoutError("%s supervisor did not answer" % self.title)
        if not box:
            raise OSError("the %s's supervisor stopped (%s)"
                          % (self.title, self.failure or "stopped"))
        ok, value = box[0]
        if not ok:
            raise value
        return value

    def _wake(self):
        try:
            self._wake_w.send(b"!")
        except OSError:
            pass

    # ---- state (I/O thread) ----

    def _reset_state(self):
        self._proc = None
        self._powered = False
        self._raw = False  # the interpreter's REPL is in raw mode
        self._tail = b""  # recent output, to find banners split across reads
        self._host_out = b""
        self._host_stalled = None
        self._board_in = b""
        self._boots = 0
        self._came_up = {"state": None, "fault": None}
        self._line_buf = b""  # the console's last partial line
        self._reset_rig()

    def _power_on(self):
        # False when it was on already; _start() runs the board's process.
        if self._powered:
            return False
        self._powered = True
        self._came_up = {"state": None, "fault": None}
        self._line_buf = b""
        self._start()
        return True

    def _hard_reset(self):
        self._power_off()
        return self._power_on()

    # ---- the serial relay ----

    _READ_SIZE = 65536  # the most taken from the board's output at once

    def _read_board(self, drain=False):
        # The board's serial output to the host: one read, or with drain all
        # there is (before a power-off). _board_fd() is None while it is off.
        fd = self._board_fd()
        while fd is not None:
            try:
                data = os.read(fd, self._READ_SIZE)
            except (BlockingIOError, OSError):
                return
            if not data or self._from_board(data) or not drain:
                return

    def _read_host(self):
        # What the host wrote, held for the board (_feed_board paces it).
        try:
            data = os.read(self._host_fd, 4096)
        except (BlockingIOError, OSError):
            return
        if data and self._taking_input():
            self._board_in += data
            self._feed_board()

    def _from_board(self, data):
        # What the board printed, to the host; True when the board restarted
        # on it and what it printed before is done with.
        self._track_mode(data)
        self._watch_start(data)
        self._to_host(data)
        return False

    def _track_mode(self, data):
        # Which REPL the interpreter shows, from its banners; returns the old mode.
        was_raw = self._raw
        window = self._tail + data
        raw_at = window.rfind(RAW_BANNER)
        friendly_at = window.rfind(FRIENDLY_BANNER)
        if raw_at >= 0 or friendly_at >= 0:
            self._raw = raw_at > friendly_at
        self._tail = window[-64:]
        return was_raw

    def _watch_start(self, data):
        # The controller's first "started" (and any "fault" before it) since
        # the power came on, as the host reads them; or the REPL instead.
        if self._came_up["state"] is not None:
            return
        *lines, self._line_buf = (self._line_buf + data).split(b"\n")
        self._line_buf = self._line_buf[-LINE_MAX:]
        for line in lines:
            event = _boot_event(line.rstrip(b"\r"))
            if event is None:
                continue
            if event["ev"] == "fault":
                self._came_up["fault"] = event.get("reason")
            else:
                self._came_up["state"] = event.get("state")
                return
        if any(FRIENDLY_BANNER in line for line in lines + [self._line_buf]):
            self._came_up["state"] = "repl"  # main.py ended without a controller

    def _to_host(self, data):
        self._host_out += data
        self._flush_host()

    def _flush_host(self):
        self._host_out = write_some(self._host_fd, self._host_out)
        if not self._host_out:
            self._host_stalled = None
        elif self._host_stalled is None:
            self._host_stalled = time.monotonic()
        elif time.monotonic() - self._host_stalled > _HOST_STALL:
            self._host_out = b""  # nobody reads: dropped, as a board's USB does
            self._host_stalled = None

    # ---- the I/O loop ----

    def _run(self):
        try:
            while not self._stopping:
                self._step()
        except Exception as error:  # noqa: BLE001 - reported, then the board stops
            self.failure = error
            import traceback

            traceback.print_exc(file=self.stderr or sys.stderr)
        finally:
            self._kill()
            self._answer_requests()

    def _answer_requests(self):
        with self._lock:
            requests, self._requests = self._requests, []
        for function, done, box in requests:
            if not self._stopping and self.failure is None:
                try:
                    box.append((True, function()))
                except Exception as error:  # noqa: BLE001 - raised in the caller's thread
                    box.append((False, error))
            done.set()

    def _step(self):
        self._update_interest()
        for key, events in self._selector.select(timeout=0.02):
            tag = key.data
            if tag == "board_out":
                self._read_board()
            elif tag == "host_in":
                if events & selectors.EVENT_READ:
                    self._read_host()
                if events & selectors.EVENT_WRITE:
                    self._flush_host()
            elif tag == "rig_accept":
                self._accept(self._rig_listener, "rig")
            elif tag == "wake":
                try:
                    self._wake_r.recv(4096)
                except BlockingIOError:
                    pass
            elif isinstance(tag, Conn):
                if events & selectors.EVENT_READ:
                    self._read_conn(tag)
                if events & selectors.EVENT_WRITE:
                    tag.flush()
            else:
                self._ready(tag)
        for conn in list(self._conns):
            if conn.closed:
                self._close(conn)
        self._answer_requests()
        self._check_exit()
        self._feed_board()
        self._flush_host()
        self._expire()
        self._tick()

    def _ready(self, tag):
        raise ValueError("no handler for %r" % (tag,))  # a board's own descriptors

    def _tick(self):
        pass  # a board's own work at the end of each turn of the loop

    def _update_interest(self):
        # Ask for writability only while output waits.
        host = selectors.EVENT_READ | (selectors.EVENT_WRITE if self._host_out else 0)
        self._modify(self._host_fd, host, "host_in")
        for conn in self._conns:
            self._modify(conn.sock, selectors.EVENT_READ
                         | (selectors.EVENT_WRITE if conn.outbuf else 0), conn)

    def _modify(self, fileobj, events, data):
        key = self._selector.get_key(fileobj)
        if key.events != events:
            self._selector.modify(fileobj, events, data)
