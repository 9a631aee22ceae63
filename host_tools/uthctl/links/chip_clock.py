# Waits the host makes on a board's behalf, counted on the board's own clock.
# An emulated chip on a busy host may run at a twentieth of real time, and
# then "no answer within 5 s" gave the chip a quarter of a second to do what
# takes it a tenth. A Patience ends only when both clocks have run its
# seconds: never sooner than on a real board, and as long as a slow chip
# needs. A chip whose clock stands still (its emulator stopped) or restarts
# (a power cycle) no longer holds the wait open.
import json
import socket
import threading
import time

CHECK_S = 0.5  # once the wall's seconds are up, the chip's clock is asked this often
STALL_S = 60.0  # the chip's clock standing this long on the wall: it is not running
ASK_TIMEOUT = 5.0  # the rig port answers `time` without waiting on the controller


class WallClock:
    """The host's own clock, for a real or virtual board."""
    # A real board's clock, or a virtual board's: the host's own.
    def now(self):
        return time.monotonic()


WALL = WallClock()


class RigChipClock:
    """An emulated chip's clock, as its rig port tells it."""
    # The chip's clock as its board's rig port tells it ({"op": "time"}: the
    # emulated Pico), on a connection of its own. A rig port without that op
    # (the virtual board, whose controller runs on the host's clock) is the
    # wall's. None while the board is off or its rig port cannot be reached.
    def __init__(self, address):
        self.address = address  # (host, port), as rig_transport.parse_address gives it
        self._sock = None
        self._buffer = b""
        self._wall = False
        self._lock = threading.Lock()  # one question at a time on its connection

    def now(self):
        if self._wall:
            return time.monotonic()
        try:
            with self._lock:
                reply = self._ask()
        except (OSError, ValueError):
            self.close()
            return None
        if reply.get("ok") and "emulated_ns" in reply:
            return reply["emulated_ns"] / 1e9
        if "unknown op" in str(reply.get("error")):
            self._wall = True
            return time.monotonic()
        return None  # the board is off: its clock is not running

    def _ask(self):
        if self._sock is None:
            self._sock = socket.create_connection(self.address, timeout=ASK_TIMEOUT)
        self._sock.sendall(b'{"op": "time"}\n')
        while b"\n" not in self._buffer:
            data = self._sock.recv(4096)
            if not data:
                raise OSError("the rig port closed the connection")
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        # Also after a failed question, so the next asks on a fresh connection.
        if self._sock is not None:
            self._sock.close()
        self._sock, self._buffer = None, b""


class Patience:
    """A wait of some seconds on the wall's clock and on a chip's."""
    # `seconds` from now on the wall's clock and on `clock`'s.
    def __init__(self, seconds, clock=WALL):
        self.seconds = seconds
        self.clock = clock
        self.wall_from = time.monotonic()
        self.chip_from = None if clock is WALL else clock.now()
        self._chip_seen = (self.wall_from, self.chip_from)  # (wall, chip) at its last move

    def wall_s(self):
        return time.monotonic() - self.wall_from

    def slice_s(self):
        # How long the next blocking wait may last before over() is asked.
        return max(self.seconds - self.wall_s(), 0) or CHECK_S

    def over(self):
        if self.wall_s() < self.seconds:
            return False
        if self.clock is WALL or self.chip_from is None:
            return True
        chip = self.clock.now()
        if chip is None or chip < self.chip_from:
            return True  # off, or powered on again: the wall's count is the one left
        wall = time.monotonic()
        if chip != self._chip_seen[1]:
            self._chip_seen = (wall, chip)
        elif wall - self._chip_seen[0] >= STALL_S:
            return True
        return chip - self.chip_from >= self.seconds

    def told(self):
        # "5.0 s", or "5.0 s of the chip's clock (96.3 s on the wall)".
        wall = self.wall_s()
        if self.clock is WALL or self.chip_from is None or wall < self.seconds * 1.5:
            return "%.1f s" % self.seconds
        return "%.1f s of the chip's clock (%.1f s on the wall)" % (self.seconds, wall)
