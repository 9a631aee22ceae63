# The host link: one JSON object a line over the USB serial link, both ways.
# The board sends events ({"ev": ...}) as they happen and one reply per
# command ({"ok": true|false, ...}, echoing the command's "id"). Garbage,
# overlong lines, unknown commands and requests the table's state forbids
# get an error reply and change nothing. See docs/host-link.md.
import json

from micropython import const

from mystery.meter import Refused

from .jsoncheck import strict_json

MAX_LINE = const(256)
_INTERRUPT = const(3)  # Ctrl-C: a board's USB stack raises it before we read


def _finite(value):
    if isinstance(value, float):
        return value - value == 0  # false for inf and nan
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    return True


class HostLink:
    def __init__(self, table, write):
        self.table = table
        self.write = write  # sends one line, terminator added by the writer
        self.buffer = bytearray()
        self.overlong = False
        self.commands = {"ping": self._ping, "status": self._status, "meters": self._meters,
                         "log": self._log, "config": self._config, "payment": self._payment,
                         "redraw": self._redraw}

    def send(self, message):
        self.write(json.dumps(message))

    # ---- bytes in ----

    def feed(self, data):
        for byte in data:
            if byte == _INTERRUPT:
                raise KeyboardInterrupt
            if byte in (10, 13):
                self._end_of_line()
            elif self.overlong:
                pass
            elif len(self.buffer) >= MAX_LINE:
                self.overlong = True
                self.buffer = bytearray()
            else:
                self.buffer.append(byte)

    def _end_of_line(self):
        line, self.buffer = bytes(self.buffer), bytearray()
        if self.overlong:
            self.overlong = False
            self.send({"ok": False, "error": "line longer than %d bytes" % MAX_LINE})
        elif line.strip():
            self._handle(line)

    # ---- one command ----

    def _handle(self, line):
        try:
            strict_json(line)  # json.loads alone takes lines that are not JSON
            command = json.loads(line.decode())
        except (ValueError, UnicodeError):  # MicroPython raises ValueError for both
            self.send({"ok": False, "error": "not a JSON line"})
            return
        if not _finite(command):
            # 1e400 parses to inf, which no JSON reply could echo back.
            self.send({"ok": False, "error": "numbers must be finite"})
            return
        if not isinstance(command, dict) or not isinstance(command.get("cmd"), str):
            self.send({"ok": False, "error": "a command is an object with a \"cmd\" string"})
            return
        reply = self._dispatch(command)
        if "id" in command:
            reply["id"] = command["id"]
        self.send(reply)

    def _dispatch(self, command):
        handler = self.commands.get(command["cmd"])
        if handler is None:
            return {"ok": False, "error": "unknown command %r" % command["cmd"]}
        try:
            return handler(command)
        except (Refused, ValueError, TypeError, KeyError) as error:
            return {"ok": False, "error": str(error) or type(error).__name__}

    def _ping(self, command):
        return {"ok": True, "reply": "pong"}

    def _status(self, command):
        return dict(self.table.status(), ok=True, reply="status")

    def _meters(self, command):
        return {"ok": True, "reply": "meters", "meters": self.table.bonus.meters()}

    def _log(self, command):
        since = command.get("since", 0)
        if type(since) is not int or since < 0:
            raise ValueError("since must be a record number, 0 or more")
        count = 0
        for record in self.table.bonus.log_since(since):
            self.send({"reply": "log", "record": record})
            count += 1
        return {"ok": True, "reply": "log", "count": count}

    def _config(self, command):
        name = command.get("mystery")
        if not isinstance(name, str):
            raise ValueError("config needs \"mystery\": a configuration name such as \"B2\"")
        self.table.configure(name)
        return {"ok": True, "reply": "config", "mystery": name}

    def _redraw(self, command):
        record = self.table.redraw()
        return {"ok": True, "reply": "redraw", "cycle": record["cycle"],
                "commitment": record["commitment"]}

    def _payment(self, command):
        self.table.set_payment(command.get("method"))
        return {"ok": True, "reply": "payment", "method": self.table.payment}
