# The rig port of a board the host runs (supervisor.py): how a rig reaches
# its pins.
#
# A loopback listener for rig clients (links/rig.py), one JSON object a line
# each way:
#   {"op": "set", "pin": "bet3", "level": 1}  -> {"ok": true, "applied": BOOL}
#       answered once the board has applied it; "applied": false when it
#       cannot (the board is off, say): the level is kept for the next one
#   {"op": "state"} -> {"ok": true, "bet_lights": [0/1 a wired seat], "jackpot_lights":
#       [0/1 a wired seat], "display": TEXT or null, "inputs": {pin: level}, "board",
#       "powered": BOOL, "boots": N, "repl": "friendly" or "raw", "pid"}
#   {"op": "press", "pin": "lock", "ms": 100} -> {"ok": true, "pin", "ms",
#       "applied": BOOL}: one operation done by the board's side: the pin
#       pressed, held ms on the board's clock, released, answered once the
#       release is applied. The client's link may drop mid-press: the
#       release comes all the same, so no host failure leaves it held
#   {"op": "power", "on": BOOL}, {"op": "reset"} (off, then on), {"op": "ping"}
#   anything else -> {"ok": false, "error": TEXT}
# Each board adds its own fields and ops (virtual.py, pico.py).
import json
import selectors
import socket
import time

LINE_MAX = 4096
PRESS_MAX_MS = 60_000  # a press is a press: a hold longer than a minute is `set`


def listen():
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    return listener


class Conn:
    # A loopback connection carrying text lines, with an output buffer.
    def __init__(self, sock, kind):
        sock.setblocking(False)
        self.sock = sock
        self.kind = kind  # "board" or "rig"
        self.inbuf = b""
        self.outbuf = b""
        self.closed = False

    def lines(self, data):
        self.inbuf += data
        *lines, self.inbuf = self.inbuf.split(b"\n")
        if len(self.inbuf) > LINE_MAX:
            raise OSError("line too long")
        return lines

    def send(self, data):
        self.outbuf += data
        self.flush()

    def flush(self):
        if self.closed or not self.outbuf:
            return
        try:
            sent = self.sock.send(self.outbuf)
        except BlockingIOError:
            return
        except OSError:
            self.closed = True
            return
        self.outbuf = self.outbuf[sent:]


class RigPort:
    # The rig's side of a supervisor, run by its I/O thread. The board
    # reports its pins (_state) and applies a level (_check_pin, _wired,
    # _send_level, then _applied when it has).
    RIG_OPS = "state, set, press, power, reset, ping"
    _APPLY_TIMEOUT = 2.0

    def _reset_rig(self):
        self._conns = []
        self._seq = 0
        self._pending = {}  # number -> (rig conn, reply, deadline) until applied
        self._pressing = {}  # a press's number -> its pin, held until the number resolves
        self._press_down = {}  # the pressed level's own number -> (press number, pin, ms)
        self._releases = []  # (monotonic due, pin, press number): held on the host's clock

    def _accept(self, listener, kind):
        # The connection waiting on listener, watched from now on; or None.
        try:
            sock, _ = listener.accept()
        except BlockingIOError:
            return None
        # Pin changes are tiny lines: Nagle's delay would hold each one ~40 ms.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = Conn(sock, kind)
        self._conns.append(conn)
        self._selector.register(sock, selectors.EVENT_READ, conn)
        return conn

    def _close(self, conn):
        if conn in self._conns:
            self._conns.remove(conn)
            self._selector.unregister(conn.sock)
        conn.sock.close()
        conn.closed = True

    def _read_conn(self, conn):
        try:
            data = conn.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._close(conn)
            return
        try:
            lines = conn.lines(data)
        except OSError:
            self._close(conn)
            return
        for line in lines:
            self._conn_line(conn, line)

    def _conn_line(self, conn, line):
        self._rig_line(conn, line)

    def _reply(self, conn, reply):
        if not conn.closed:
            conn.send(json.dumps(reply).encode() + b"\n")

    def _rig_line(self, conn, line):
        if not line.strip():
            return
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            self._rig_request(conn, request)
        except (ValueError, TypeError, KeyError) as error:
            self._reply(conn, {"ok": False, "error": str(error)})

    def _rig_request(self, conn, request):
        op = request.get("op")
        if op == "state":
            self._reply(conn, self._state())
        elif op == "ping":
            self._reply(conn, {"ok": True, "reply": "pong"})
        elif op == "set":
            self._set(conn, request["pin"], request["level"])
        elif op == "press":
            self._press(conn, request["pin"], request["ms"])
        elif op == "power":
            self._reply(conn, {"ok": True, "changed": self._power_on() if request["on"]
                               else self._power_off()})
        elif op == "reset":
            self._reply(conn, {"ok": True, "changed": self._hard_reset()})
        else:
            raise ValueError("unknown op %r (%s)" % (op, self.RIG_OPS))

    def _set(self, conn, pin, level):
        self._check_pin(pin)
        if level not in (0, 1, True, False):
            raise ValueError("level must be 0 or 1")
        self._levels[pin] = int(level)
        reply = {"ok": True, "pin": pin, "level": int(level), "applied": True}
        if not self._wired():
            self._reply(conn, dict(reply, applied=False))  # kept for the next board
            return
        # Answered when the board says its controller's next tick sees the level.
        self._seq += 1
        self._pending[self._seq] = (conn, reply, self._due(self._APPLY_TIMEOUT))
        self._send_level(pin, int(level), self._seq)

    def _press(self, conn, pin, ms):
        self._check_pin(pin)
        if type(ms) is not int or not 0 <= ms <= PRESS_MAX_MS:
            raise ValueError("press: ms is a whole number of milliseconds, 0 to %d"
                             % PRESS_MAX_MS)
        reply = {"ok": True, "pin": pin, "ms": ms, "applied": True}
        if not self._wired():
            self._reply(conn, dict(reply, applied=False))  # nothing pressed, nothing held
            return
        self._seq += 1
        self._levels[pin] = 1
        self._pressing[self._seq] = pin
        due = self._due(self._APPLY_TIMEOUT + self._press_wait(ms))
        self._pending[self._seq] = (conn, reply, due)
        self._send_press(pin, ms, self._seq)

    def _press_wait(self, ms):
        # How long, on the host's clock, a press of ms may take to be held.
        return ms / 1000

    def _due(self, seconds):
        # When a level's answer, still not come, is given up: `seconds` from
        # now on the board's clock, which is the host's but on an emulated chip.
        return time.monotonic() + seconds

    def _overdue(self, due, now):
        return now > due

    def _send_press(self, pin, ms, number):
        # The board's side holds it on the host's clock; a board whose own
        # clock times the hold (the emulated Pico's) overrides this.
        self._seq += 1
        self._press_down[self._seq] = (number, pin, ms)
        self._send_level(pin, 1, self._seq)

    def _applied(self, number):
        # The board applied the level sent with `number`: its rig is answered.
        down = self._press_down.pop(number, None)
        if down is not None:  # pressed: the release is due ms from now
            press, pin, ms = down
            self._releases.append((time.monotonic() + self._press_wait(ms), pin, press))
            return
        self._released(number)
        entry = self._pending.pop(number, None)
        if entry is not None:
            self._reply(entry[0], entry[1])

    def _released(self, number):
        pin = self._pressing.pop(number, None)
        if pin is not None:
            self._levels[pin] = 0

    def _unapplied(self):
        # The board went: every level still on its way is answered not
        # applied, and every press in progress let go (the next board starts
        # with it released).
        self._press_down, self._releases = {}, []
        for number in list(self._pressing):
            self._released(number)
        for number in list(self._pending):
            conn, reply, _ = self._pending.pop(number)
            self._reply(conn, dict(reply, applied=False))

    def _expire(self):
        now = time.monotonic()
        self._release_due(now)
        for number, (conn, reply, due) in list(self._pending.items()):
            if self._overdue(due, now):
                del self._pending[number]
                self._let_go(number)
                self._reply(conn, dict(reply, applied=False))

    def _release_due(self, now):
        due = [entry for entry in self._releases if entry[0] <= now]
        self._releases = [entry for entry in self._releases if entry[0] > now]
        for _, pin, number in due:
            self._levels[pin] = 0
            if self._wired():
                self._send_level(pin, 0, number)

    def _let_go(self, number):
        # A press whose answer never came is released all the same.
        pin = self._pressing.get(number)
        self._released(number)
        self._releases = [entry for entry in self._releases if entry[2] != number]
        self._press_down = {down: entry for down, entry in self._press_down.items()
                            if entry[0] != number}
        if pin is not None and self._wired():
            self._seq += 1
            self._send_level(pin, 0, self._seq)
