# How a rig client (rig.py) reaches its rig: one JSON line each way over
#   SocketTransport  the rig port of a board the host runs (the virtual
#                    board's, the emulated Pico's), HOST:PORT on loopback
#   SerialTransport  a rig Pico's USB serial port (boards/rig_pico), a real
#                    /dev/ttyACM1 or an emulated rig Pico's pty
# Each sends bytes and reads one line (bytes, no terminator), raising
# RigError with a plain reason when the other end is gone or silent.
import json
import socket
import time

import serial

from .board_link import repl_sign
from .chip_clock import WALL, Patience, RigChipClock


class RigError(OSError):
    """The rig did not answer, or answered with an error."""
    pass


SLOW_NOTE = ("rig: the board's chip runs behind the wall clock: waiting for %.1f s of its "
             "clock (`uthctl rig --sim ADDRESS state` shows its pace)")


def parse_address(text):
    """(host, port) of a rig address HOST:PORT or PORT."""
    host, _, port = str(text).rpartition(":")
    if not port.isdigit():
        raise ValueError("rig address must be HOST:PORT or PORT, not %r" % (text,))
    return host or "127.0.0.1", int(port)


class SocketTransport:
    """A rig port on a socket, a host-run board's."""
    # Its waits are counted on the board's clock as well as the wall's
    # (chip_clock.py): an emulated Pico on a busy host is slow, not silent.
    def __init__(self, address, timeout):
        self.address = parse_address(address)
        self.timeout = timeout
        self.chip_clock = RigChipClock(self.address)
        try:
            self.sock = socket.create_connection(self.address, timeout=timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError as error:
            raise RigError("no virtual board rig at %s:%d (%s)"
                           % (self.address + (error.strerror or error,))) from None
        self.buffer = b""
        # Called once a wait, with a line, when the wall's seconds are up but
        # the chip's are not: a person at `uthctl rig` then knows it waits on
        # a slow chip. None (the table's screen) says nothing.
        self.slow_note = None

    def close(self):
        self.sock.close()
        self.chip_clock.close()

    def send(self, data):
        self.sock.sendall(data)

    def read_line(self, timeout=None, on_chip=True):
        # on_chip: the answer waits on the board (a level applied, a press
        # held); False for what its supervisor answers alone (state, ping).
        wait = self.timeout if timeout is None else timeout
        patience = Patience(wait, self.chip_clock if on_chip else WALL)
        noted = False
        try:
            while b"\n" not in self.buffer:
                self.sock.settimeout(patience.slice_s())
                try:
                    data = self.sock.recv(4096)
                except socket.timeout:
                    if patience.over():
                        raise RigError("rig: no answer within %s" % patience.told()) from None
                    if self.slow_note is not None and not noted:
                        noted = True
                        self.slow_note(SLOW_NOTE % wait)
                    continue
                if not data:
                    raise RigError("rig: the supervisor closed the connection")
                self.buffer += data
        finally:
            self.sock.settimeout(self.timeout)
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line


class SerialTransport:
    """A rig Pico on its USB serial port."""
    # A rig Pico answers each request with one JSON object line ending
    # "\r\n". Anything else on its port (MicroPython's banner at a reset) is
    # skipped; its REPL (the rig firmware stopped) is a plain error at once.
    sock = None

    def __init__(self, port, timeout, baudrate=115200):
        self.port = port
        self.timeout = timeout
        try:
            self.serial = serial.Serial(port, baudrate, timeout=0.05)
        except serial.SerialException as error:
            raise RigError("cannot open the rig's port %s: %s" % (port, error)) from None
        self.buffer = b""
        self.send(b"\r\n")  # ends a partial line the rig may hold; a blank line gets no answer

    def close(self):
        self.serial.close()

    def send(self, data):
        self.serial.write(data)
        self.serial.flush()

    def read_line(self, timeout=None, on_chip=True):
        # A rig Pico and the board it drives are real chips: the wall's clock is theirs.
        wait = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        while True:
            line = self._raw_line(deadline, wait).rstrip(b"\r")
            if _is_object(line):
                return line
            sign = repl_sign(line)
            if sign:
                raise RigError("the rig at %s shows %s, not its firmware: `mpremote connect "
                               "%s reset` starts it" % (self.port, sign, self.port))

    def _raw_line(self, deadline, wait):
        while b"\n" not in self.buffer:
            if time.monotonic() >= deadline:
                raise RigError("rig: no answer from %s within %.1f s" % (self.port, wait))
            self.buffer += self.serial.read(max(1, self.serial.in_waiting))
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line


def _is_object(line):
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def is_address(text):
    """True when text is a rig address rather than a device path."""
    # HOST:PORT or PORT (a board the host runs) rather than a device path.
    try:
        parse_address(text)
    except ValueError:
        return False
    return "/" not in str(text) and "\\" not in str(text)
