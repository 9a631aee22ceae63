# A test rig's hands on a table: it sets input pins (bet sensors, UTH wager
# sensors, the LOCK button, the key switch) and reads the outputs (bet and
# jackpot lights, the LED meter's text where the rig can see it). Each set
# returns once the board has applied it, so the controller's next tick sees
# the new level. One interface, three rigs, by the transport
# (rig_transport.py): the rig port of the virtual board or the emulated Pico
# (boards/rig_port.py, a socket) and a rig Pico on its serial port
# (boards/rig_pico): Rig(address) or Rig(port=DEVICE); open_rig() takes either.
import json
import secrets
import time

from uth.seats import MAX_SEAT

from .rig_transport import RigError, SerialTransport, SocketTransport, is_address, parse_address

PRESS_MS = 100  # long enough for the 30 ms debounce, short of LOCK's 2 s hold
# A press is held on the board's clock: an emulated Pico may run at a quarter
# of real time, so its hold may take four times as long on the host's.
PRESS_CLOCK_SLACK = 4

# What a board's supervisor answers alone, without its chip: waited for on
# the wall's clock. Every other answer waits on the board (chip_clock.py).
SUPERVISOR_OPS = ("state", "ping", "cut", "throttle")

__all__ = ["PRESS_MS", "Rig", "RigError", "lit", "open_rig", "parse_address"]


def open_rig(where, timeout=5.0):
    """A rig at a rig address (HOST:PORT) or on a rig Pico's serial port."""
    # A rig at a board's rig address (HOST:PORT) or on a rig Pico's serial port.
    return Rig(where, timeout) if is_address(where) else Rig(port=where, timeout=timeout)


class Rig:
    """A test rig: sets a board's inputs and reads its lights and display."""
    def __init__(self, address=None, timeout=5.0, port=None):
        if (address is None) == (port is None):
            raise ValueError("a rig is at an address (a board's rig port) or on a serial port")
        self.timeout = timeout
        self._ids_from = secrets.randbelow(1 << 30) << 16
        self._asked = 0
        if port is None:
            self.transport = SocketTransport(address, timeout)
            self.address = self.transport.address
        else:
            self.transport = SerialTransport(port, timeout)
            self.address = None

    @property
    def sock(self):
        return self.transport.sock  # None on a serial port

    @property
    def buffer(self):
        return self.transport.buffer

    def close(self):
        self.transport.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- the protocol ----

    def request(self, timeout=None, **request):
        # timeout: how long this answer may take, when longer than the rig's own.
        request["id"] = self.next_id()
        self.transport.send(json.dumps(request).encode() + b"\n")
        reply = self.answer_to(request["id"], timeout, request.get("op") not in SUPERVISOR_OPS)
        if not reply.get("ok"):
            raise RigError("rig: %s" % reply.get("error", "refused"))
        return reply

    def next_id(self):
        # Ids start at random, so a client's never meets another's.
        self._asked += 1
        return self._ids_from + self._asked

    def answer_to(self, request_id, timeout=None, on_chip=True):
        # The answer that names this request. A rig Pico's serial line is
        # every client's in turn: an answer naming another id was left for a
        # client killed mid-request, and is passed over. A rig that names
        # none (the boards' rig ports, on a connection of one client's own)
        # answers in order.
        while True:
            reply = json.loads(self._line(timeout, on_chip))
            if reply.get("id", request_id) == request_id:
                reply.pop("id", None)
                return reply

    def _line(self, timeout=None, on_chip=True):
        return self.transport.read_line(timeout, on_chip)

    # ---- pins ----

    def set(self, pin, level):
        return self.request(op="set", pin=pin, level=1 if level else 0)

    def chip(self, seat, on=True):
        # The progressive wager's bet sensor at one seat.
        return self.set("bet%d" % _seat(seat), on)

    def uth(self, seat, on=True):
        # The UTH wager's sensor (all placed when the virtual table starts).
        return self.set("uth%d" % _seat(seat), on)

    def press(self, pin, hold_ms=PRESS_MS):
        # Pressed, held hold_ms and released by the rig itself, one request:
        # a client killed or a link dropped mid-press leaves nothing held.
        # Should the answer fail to come, the release is sent all the same.
        released = False
        try:
            reply = self.request(timeout=self.timeout + PRESS_CLOCK_SLACK * hold_ms / 1000,
                                 op="press", pin=pin, ms=int(hold_ms))
            released = True
            return reply
        except RigError as error:
            if "unknown op 'press'" not in str(error):
                raise
            released = True  # refused: nothing was pressed
            return self._press_by_hand(pin, hold_ms)  # a rig Pico with older firmware
        finally:
            if not released:
                self._release(pin)

    def _press_by_hand(self, pin, hold_ms):
        self.set(pin, 1)
        try:
            time.sleep(hold_ms / 1000)
        finally:
            reply = self.set(pin, 0)
        return reply

    def _release(self, pin):
        # Best effort on a link that just failed: the rig's answer may never come.
        try:
            self.set(pin, 0)
        except (OSError, ValueError):
            pass

    def press_lock(self, hold_ms=PRESS_MS):
        return self.press("lock", hold_ms)

    def key(self, on):
        # Hold the key turned (service mode) or release it.
        return self.set("key", on)

    def turn_key(self, hold_ms=PRESS_MS):
        # Turn and release: validates a pending hit.
        return self.press("key", hold_ms)

    def door(self, opened):
        # The controller's compartment door opened (its switch lets go) or shut.
        return self.set("door", opened)

    # ---- the board ----

    def state(self):
        return self.request(op="state")

    def i2c_fault(self, on, address=None):
        # The board's I2C bus (or one expander on it) stops answering, or
        # answers again: the virtual board and the emulated Pico only.
        request = {"op": "i2c_fault", "on": bool(on)}
        if address is not None:
            request["address"] = address
        return self.request(**request)

    def display_fault(self, on):
        # The LED meter stops acknowledging what it is sent, or answers
        # again: the virtual board only (its display models a TM1637's acks).
        return self.request(op="display_fault", on=bool(on))

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
    """The seat numbers whose light is on."""
    return [n + 1 for n, level in enumerate(lights) if level]
