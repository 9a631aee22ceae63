# The host side of the host link (firmware/table/hostlink.py): one JSON
# object a line over the board's USB serial port, a real one or the virtual
# board's pty. Lines end in "\r\n" from a board ("\n" is accepted too); lines
# that are not JSON objects (a REPL banner, a traceback, "MPY: soft reboot")
# are kept in `other`; events ({"ev": ...}) are kept in `events` while a
# command waits for its reply.
#
# A board whose controller stopped (Ctrl-C, or any mpremote command, leaves
# it at MicroPython's REPL) answers a command line with its REPL: the line
# echoed after a ">>> " prompt, or the raw REPL's banner. The link notices
# (`at_repl`) and a command fails at once with the way back, rather than
# after its whole timeout with a guess.
import json
import time

import serial

from . import ports

DEFAULT_TIMEOUT = 5.0
PROMPT = b">>> "
RAW_BANNER = b"raw REPL; CTRL-B to exit"
SOFT_REBOOT = b"MPY: soft reboot"
PROMPT_GRACE_S = 0.5  # a bare prompt this long after a command, and no reply: the REPL
# A port that is no board's and has sent nothing this long after a command is
# taken as the wrong port, not a controller slow to answer.
NOT_A_BOARD_S = 1.0


class LinkError(OSError):
    """The board cannot be reached or does not answer as the controller."""
    pass


class AtReplError(LinkError):
    """The board is at its REPL, not running the controller."""
    pass


def reset_command(port):
    """What a technician types to start the controller again on port."""
    # What a technician types to start the controller again: a hard reset,
    # as a power cycle, so main.py runs.
    return "mpremote connect %s reset" % port


def way_back(port):
    """How to get a board at its REPL back to the controller, in words."""
    return "`%s` starts it again" % reset_command(port)


def repl_sign(line):
    """What in a board's non-JSON line shows its REPL, or None."""
    # What in a board's (non-JSON) line shows its REPL; None for other lines.
    if line.startswith(PROMPT):
        return "its >>> prompt"
    if RAW_BANNER in line:
        return "its raw REPL banner"
    return None


class Link:
    """The host link to a board: one JSON command and its reply at a time."""
    def __init__(self, port, timeout=DEFAULT_TIMEOUT, baudrate=115200, end_line=True,
                 exclusive=False):
        self.port = port
        self.timeout = timeout
        try:
            # pyserial flushes what the board sent before the port was opened.
            # exclusive: a lock as mpremote takes, so a second program that
            # asks for one (mpremote, uthctl monitor) is refused, not raced.
            self.serial = serial.Serial(port, baudrate, timeout=0.05,
                                        exclusive=exclusive or None)
        except serial.SerialException as error:
            busy = " (another program holds it: a table's bridge? uthctl monitor? mpremote?)" \
                if "exclusively lock" in str(error) else ""
            raise LinkError("cannot open %s%s: %s" % (port, busy, error)) from None
        self.buffer = b""
        self.events = []
        self.other = []
        self.next_id = 1
        self.at_repl = None  # what showed the board at its REPL, until it answers again
        self.heard = False  # any byte from the port yet
        self.not_a_board = ports.not_a_board(port)  # why the port is no board's, or None
        if end_line:  # a listener that must send nothing passes False
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
        self.heard = self.heard or bool(data)
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
            if message is None and line.startswith(PROMPT):
                # A prompt left without a line end (the board was reset at
                # its REPL) runs into the next line; a host's command echoed
                # at the REPL carries "cmd", the board's own lines never do.
                message = _parse(line[len(PROMPT):])
                message = None if message is None or "cmd" in message else message
            if message is None:
                self._other(line)
            else:
                self.at_repl = None  # the controller speaks
                return message

    def _other(self, line):
        self.other.append(line)
        if SOFT_REBOOT in line:
            self.at_repl = None  # the board leaves its REPL and restarts
        else:
            self.at_repl = repl_sign(line) or self.at_repl

    def repl_evidence(self, since=0.0):
        # Why the board is taken to be at its REPL, or None: the last sign
        # seen (at_repl), or a prompt waiting in the buffer with no line end
        # that has stood since `since` (time.monotonic()) plus PROMPT_GRACE_S.
        if self.at_repl:
            return self.at_repl
        if self.buffer.endswith(PROMPT) and time.monotonic() - since >= PROMPT_GRACE_S:
            return "its >>> prompt"
        return None

    def _answered_by_repl(self, sent, since):
        # The REPL's answer to the line `sent`, from what came after it: its
        # echo, a prompt or the raw REPL's banner (a soft reboot after them
        # cancels them), or a new prompt left in the buffer for PROMPT_GRACE_S.
        # Signs from before the line are not counted: a board just reset may
        # still be starting its controller.
        index, sent_at, buffer_before = since
        sign = None
        for line in self.other[index:]:
            if sent in line:
                return "it echoed the command line"
            sign = None if SOFT_REBOOT in line else (repl_sign(line) or sign)
        if sign:
            return sign
        if (self.buffer.endswith(PROMPT) and self.buffer != buffer_before
                and time.monotonic() - sent_at >= PROMPT_GRACE_S):
            return "its >>> prompt"
        return None

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
        # that arrive meanwhile go to self.events. AtReplError as soon as
        # the board shows its REPL instead of answering.
        number, self.next_id = self.next_id, self.next_id + 1
        line = json.dumps(dict(fields, cmd=cmd, id=number)).encode()
        since = (len(self.other), time.monotonic(), self.buffer)
        self.write(line + b"\r\n")
        limit = self.timeout if timeout is None else timeout
        deadline = since[1] + limit
        while True:
            message = self.read_message(min(0.1, max(0.0, deadline - time.monotonic())))
            if message is None:
                self._check_repl(line, since)
                self._check_board(since[1])
                if time.monotonic() < deadline:
                    continue
                raise LinkError("no reply to %r from %s within %.1f s: is the controller "
                                "running? (a board at its raw REPL stays silent; %s)"
                                % (cmd, self.port, limit, way_back(self.port)))
            if "ev" in message:
                self.events.append(message)
            elif message.get("id") == number:
                return message

    def _check_board(self, sent_at):
        # The wrong port fails in a second, and is never told to reset a board.
        if (self.not_a_board and not self.heard
                and time.monotonic() - sent_at >= NOT_A_BOARD_S):
            raise LinkError("nothing answers on %s: %s (a board is /dev/ttyACM0, /dev/ttyUSB0 "
                            "or the like; --port auto finds it)" % (self.port, self.not_a_board))

    def _check_repl(self, sent, since):
        evidence = self._answered_by_repl(sent, since)
        if evidence:
            raise AtReplError("the board at %s is at the MicroPython REPL (%s): its controller "
                              "is stopped; %s" % (self.port, evidence, way_back(self.port)))

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
