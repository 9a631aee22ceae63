# A test rig's hands on the virtual table: a client of the supervisor's rig
# port (boards/rig_port.py). It sets input pins (bet sensors, UTH wager sensors, the
# LOCK button, the key switch) and reads the outputs (bet and jackpot lights,
# the LED meter's text). Each set returns once the board has applied it, so
# the controller's next tick sees the new level.
import json
import socket
import time

from uth.seats import MAX_SEAT

PRESS_MS = 100  # long enough for the 30 ms debounce, short of LOCK's 2 s hold


class RigError(OSError):
    pass


def parse_address(text):
    host, _, port = str(text).rpartition(":")
    if not port.isdigit():
        raise ValueError("rig address must be HOST:PORT or PORT, not %r" % text)
    return host or "127.0.0.1", int(port)


class Rig:
    def __init__(self, address, timeout=5.0):
        self.address = parse_address(address)
        self.timeout = timeout
        try:
            self.sock = socket.create_connection(self.address, timeout=timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError as error:
            raise RigError("no virtual board rig at %s:%d (%s)"
                           % (self.address + (error.strerror or error,))) from None
        self.buffer = b""

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- the protocol ----

    def request(self, **request):
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        reply = json.loads(self._line())
        if not reply.get("ok"):
            raise RigError("rig: %s" % reply.get("error", "refused"))
        return reply

    def _line(self):
        while b"\n" not in self.buffer:
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                raise RigError("rig: no answer within %.1f s" % self.timeout) from None
            if not data:
                raise RigError("rig: the supervisor closed the connection")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    # ---- pins ----

    def set(self, pin, level):
        return self.request(op="set", pin=pin, level=1 if level else 0)

    def chip(self, seat, on=True):
        # The progressive wager's bet sensor at one seat.
        return self.set("bet%d" % _seat(seat), on)

    def uth(self, seat, on=True):
        # The UTH wager's sensor (all placed when the virtual table starts).
        return self.set("uth%d" % _seat(seat), on)

    def press_lock(self, hold_ms=PRESS_MS):
        self.set("lock", 1)
        time.sleep(hold_ms / 1000)
        return self.set("lock", 0)

    def key(self, on):
        # Hold the key turned (service mode) or release it.
        return self.set("key", on)

    def turn_key(self, hold_ms=PRESS_MS):
        # Turn and release: validates a pending hit.
        self.set("key", 1)
        time.sleep(hold_ms / 1000)
        return self.set("key", 0)

    # ---- the board ----

    def state(self):
        return self.request(op="state")

    def power(self, on):
        return self.request(op="power", on=bool(on))

    def reset(self):
        return self.request(op="reset")

    def wait_for(self, predicate, timeout=5.0, interval=0.02, what="the rig state"):
        # Polls state() until predicate(state) holds; RigError with the last state if not.
        deadline = time.monotonic() + timeout
        while True:
            state = self.state()
            if predicate(state):
                return state
            if time.monotonic() >= deadline:
                raise RigError("timed out after %.1f s waiting for %s; last state: %s"
                               % (timeout, what, json.dumps(state)))
            time.sleep(interval)


def _seat(seat):
    # A seat of the game's table; a board that does not wire it refuses its pin.
    seat = int(seat)
    if not 1 <= seat <= MAX_SEAT:
        raise ValueError("seat must be 1 to %d" % MAX_SEAT)
    return seat


def lit(lights):
    # The seat numbers whose light is on.
    return [n + 1 for n, level in enumerate(lights) if level]
