# The host side of the host link (firmware/table/hostlink.py): one JSON
# object a line over the board's USB serial port, a real one or the virtual
# board's pty. Lines end in "\r\n" from a board ("\n" is accepted too); lines
# that are not JSON objects (a REPL banner, a traceback, "MPY: soft reboot")
# are kept in `other`; events ({"ev": ...}) are kept in `events` while a
# command waits for its reply.
import json
import time

import serial

DEFAULT_TIMEOUT = 5.0


class LinkError(OSError):
    pass


class Link:
    def __init__(self, port, timeout=DEFAULT_TIMEOUT, baudrate=115200):
        self.port = port
        self.timeout = timeout
        try:
            # pyserial flushes what the board sent before the port was opened.
            self.serial = serial.Serial(port, baudrate, timeout=0.05)
        except serial.SerialException as error:
            raise LinkError("cannot open %s: %s" % (port, error)) from None
        self.buffer = b""
        self.events = []
        self.other = []
        self.next_id = 1
        self.write(b"\r\n")  # ends whatever partial line the board holds

    def close(self):
        self.serial.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- bytes ----

    def write(self, data):
        self.serial.write(data)
        self.serial.flush()

    def _fill(self, deadline):
        # Reads what arrives before the deadline; False when nothing did.
        wait = deadline - time.monotonic()
        if wait <= 0:
            return False
        self.serial.timeout = min(wait, 0.05)
        data = self.serial.read(max(1, self.serial.in_waiting))
        self.buffer += data
        return bool(data)

    def read_until(self, marker, timeout=None):
        # The bytes up to and including marker; LinkError if it never comes.
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        while marker not in self.buffer:
            if time.monotonic() >= deadline:
                raise LinkError("no %r from %s within %.1f s (last bytes %r)"
                                % (marker, self.port, limit, self.buffer[-200:]))
            self._fill(deadline)
        end = self.buffer.index(marker) + len(marker)
        data, self.buffer = self.buffer[:end], self.buffer[end:]
        return data

    def read_line(self, timeout=None):
        # One raw line with its terminator, or None when none came in time.
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while b"\n" not in self.buffer:
            if time.monotonic() >= deadline:
                return None
            self._fill(deadline)
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line + b"\n"

    # ---- messages ----

    def read_message(self, timeout=None):
        # The next JSON object line, or None when none came in time.
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line is None:
                return None
            message = _parse(line)
            if message is None:
                self.other.append(line)
            else:
                return message

    def send(self, message):
        self.write(json.dumps(message).encode() + b"\r\n")

    def wait_ready(self, timeout=10.0):
        # Until the controller answers: a board that just (re)started is
        # still mounting its flash and reading its meters.
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.command("ping", timeout=0.5)
            except OSError:
                if time.monotonic() > deadline:
                    raise

    def command(self, cmd, timeout=None, **fields):
        # Sends one command and returns its reply (matched by id); events
        # that arrive meanwhile go to self.events.
        number, self.next_id = self.next_id, self.next_id + 1
        self.send(dict(fields, cmd=cmd, id=number))
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            message = self.read_message(max(0.0, deadline - time.monotonic()))
            if message is None:
                raise LinkError("no reply to %r from %s (is the controller running?)"
                                % (cmd, self.port))
            if "ev" in message:
                self.events.append(message)
            elif message.get("id") == number:
                return message

    def wait_event(self, name, timeout=None):
        # The first event called name, from those kept or arriving in time.
        for index, event in enumerate(self.events):
            if event.get("ev") == name:
                return self.events.pop(index)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            message = self.read_message(max(0.0, deadline - time.monotonic()))
            if message is None:
                raise LinkError("no %r event from %s" % (name, self.port))
            if message.get("ev") == name:
                return message
            if "ev" in message:
                self.events.append(message)


def _parse(line):
    try:
        message = json.loads(line.decode("utf-8", "replace").strip())
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
