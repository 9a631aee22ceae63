# The host link: one JSON object a line over the USB serial link, both ways.
# The board sends events ({"ev": ...}) as they happen and one reply per
# command ({"ok": true|false, ...}, echoing the command's "id"). Garbage,
# overlong lines, unknown commands and requests the table's state forbids
# get an error reply and change nothing. See docs/host-link.md.
#
# The link shares the board's one asyncio loop with the table, so no turn of
# it may take long: a log export goes out a few records a turn, and what the
# host sends meanwhile waits its turn (commands are answered in order, never
# inside an export's records). A partial line is dropped after a silence, so a
# host that died mid-line cannot spoil the next host's first command.
#
# The port speaks only this link (docs/host-link.md, "Control bytes"): the
# board's main.py turns the port's Ctrl-C off, and a control byte (Ctrl-A to
# Ctrl-E among them) is one more byte of a line, which JSON's grammar then
# refuses. The REPL is reached only by `repl`, with the key switch held.
import gc
import json

from micropython import const

from mystery.refusal import Refused
from mystery.store import LogTrimmed
from uth.let_go import let_go

from . import expiry
from .board_clock import checked as checked_time
from .clock import ticks_diff
from .jsoncheck import strict_json

MAX_LINE = const(256)
# A `round` command carries a whole round (up to seven seats' cards and
# wagers): its line may be this long. A longer line than MAX_LINE is read up
# to here and refused unless it is a round's (docs/host-link.md, the measure).
MAX_ROUND_LINE = const(4096)
# A line this long (a round's: a host's other commands are shorter) has its
# JSON checked by the check's fast pass first (table/jsoncheck.py).
_FAST_CHECK = const(128)
LINE_GAP_MS = const(500)  # a partial line with no byte for this long is dropped
LOG_SLICE = const(4)  # log records read (and so at most sent) per turn of the loop
_MESSAGE_MAX = const(120)  # an internal error's message is cut to this many characters
_HELD_MAX = const(512)  # bytes read ahead during an export; more wait in the serial buffer
# A `head` command's nonce, in hex digits: at least 32 bits, at most 256.
_NONCE_MIN = const(8)
_NONCE_MAX = const(64)


def _finite(value):
    if isinstance(value, float):
        return value - value == 0  # false for inf and nan
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    return True


_OVERLONG = "line longer than %d bytes" % MAX_ROUND_LINE
_NO_ROOM = "line longer than %d bytes, and no memory free for a round's line" % MAX_LINE


_STOPS = (b"\n", b"\r")


def _next_stop(data, at, end):
    # Where the next line end is in data[at:end], or end.
    for mark in _STOPS:
        found = data.find(mark, at, end)
        if found >= 0:
            end = found
    return end


def _blank(line):
    # As bytes.strip() sees a line: nothing but ASCII whitespace.
    for byte in line:
        if byte not in (32, 9, 10, 11, 12, 13):
            return False
    return True


def _loads(line):
    try:
        return json.loads(line)
    except TypeError:  # CPython's json takes no memoryview (the logic tests run there too)
        return json.loads(bytes(line))


# The commands a host may send, each answered by the method named "_" and
# its name: looked up when one comes, as a table of bound methods made at
# start held about 0.9 KB of a WROOM's heap for good (docs/heap.md).
COMMANDS = ("ping", "status", "meters", "log", "config", "payment", "redraw", "set",
            "validation", "round", "clock", "authenticate", "provision", "head", "seed",
            "repl", "accept_program", "collected")


class HostLink:
    def __init__(self, table, write, write_json=None, clock=None):
        self.table = table
        self.clock = clock  # the board's calendar clock (board_clock.py); None: it has none
        self.write = write  # sends one line, terminator added by the writer
        # Sends a message as a line written a piece at a time (the board's
        # UsbSerial.write_json), for one too long to make whole; None: none.
        self.write_json = write_json
        # The line so far: its bytes are buffer[:length]. MAX_LINE at first;
        # the first line to pass it gets a round's MAX_ROUND_LINE, made in
        # one piece and kept from then on, because a table sent rounds gets
        # them all day and a buffer made again and again leaves the heap in
        # pieces. A board makes it at start (reserve_round_line).
        self.buffer = bytearray(MAX_LINE)
        self.length = 0
        self.overlong = False
        self.heard = 0  # ticks when the partial line's last byte came
        self.export = None  # the log export under way
        self.held = b""  # bytes read during an export, handled after it
        from . import version  # read once, and let go: a build does not change while it runs

        self.identity = version.firmware_version()
        let_go(version.__name__)
        self.heap = None  # the board's HeapWatch (heap.py), which app.build gives it
        self.program = None  # what `authenticate` reads: the board's (program.py)
        self.internal_errors = 0  # commands that met a firmware bug since start-up
        # Set once `repl` is answered: the port is the REPL's from then on,
        # and the board's loop ends (app.py).
        self.handed_off = False

    def send(self, message):
        # A line the heap cannot hold now is tried once more after a
        # collection, then written a piece at a time where the port can,
        # then given up with a short line that says so: the table never
        # stops for want of memory to speak (every event is also in the
        # log, for the host to export).
        try:
            self.write(json.dumps(message))
            return
        except MemoryError:
            gc.collect()
        try:
            self.write(json.dumps(message))
            return
        except MemoryError:
            gc.collect()
        if self.write_json is not None:
            try:
                self.write_json(message)
                return
            except MemoryError:
                gc.collect()
        self.write(_unsent(message))

    # ---- one turn of the loop ----

    def poll(self, read, now):
        # Sends the next slice of a log export, or reads (read() returns the
        # bytes waiting, b"" for none) and handles what the host sent.
        if self.export is not None:
            if len(self.held) < _HELD_MAX:
                self._hold(read())
            self._export_slice()
        else:
            self.feed(b"" if self.held else read(), now)

    def busy(self):
        # An export under way, or bytes held back by one.
        return self.export is not None or bool(self.held)

    def idle(self):
        # Nothing under way: no export, no line half read.
        return not (self.busy() or self.length or self.overlong)

    def _hold(self, data):
        self.held += bytes(data)  # (a bytearray's slice would make held one)

    # ---- bytes in ----

    def feed(self, data, now):
        if self.export is not None:
            self._hold(data)
            return
        if self.held:  # what came during the last export goes first
            data, self.held = self.held + data, b""
        if not data:
            # Only a read that found nothing is silence: after a long turn
            # (a commit, say) the rest of a line may be waiting in this read.
            self._drop_stale_line(now)
        # Taken a slice at a time between line ends, never a byte at a
        # time: a round's line is long (docs/host-link.md).
        at, end = 0, len(data)
        while at < end:
            self.heard = now
            stop = _next_stop(data, at, end)
            if stop > at and not self.overlong:
                self._take(data, at, stop)
            if stop == end:
                return
            self._end_of_line()
            at = stop + 1
            if self.handed_off:  # what follows `repl` is the REPL's, not a command
                return
            if self.export is not None:  # a log command: the rest waits for its end
                self._hold(data[at:])
                return

    def _take(self, data, at, stop):
        # data[at:stop], part of a line, onto the line so far.
        length = self.length + stop - at
        if length > len(self.buffer) and not self._lengthen(length):
            return
        self.buffer[self.length:length] = data[at:stop]
        self.length = length

    def reserve_round_line(self):
        # A round's buffer is made now, while the heap is whole: at the first
        # round, after hours of play, the heap may be in pieces too small for
        # it, and every round would be refused.
        if len(self.buffer) < MAX_ROUND_LINE and not self.length:
            try:
                self.buffer = bytearray(MAX_ROUND_LINE)
            except MemoryError:
                pass  # the first round's line tries again

    def _lengthen(self, length):
        # Room for a line of `length` bytes: a round's buffer, or the line is overlong.
        if length <= MAX_ROUND_LINE:
            try:
                longer = bytearray(MAX_ROUND_LINE)
            except MemoryError:
                self.overlong = _NO_ROOM
                self.length = 0
                return False
            longer[:self.length] = self.buffer[:self.length]
            self.buffer = longer
            return True
        self.overlong = _OVERLONG
        self.length = 0
        return False

    def _drop_stale_line(self, now):
        # Called at every turn that read nothing, so the silence measured
        # stays near LINE_GAP_MS.
        if not (self.length or self.overlong):
            return
        silence = ticks_diff(now, self.heard)
        if silence >= LINE_GAP_MS or silence < 0:  # (negative: no turn for days)
            self.length = 0
            self.overlong = False
            self.send({"ok": False, "error": "partial line dropped: no byte for %d ms"
                       % LINE_GAP_MS})

    def _end_of_line(self):
        # The line is read where it lies, never copied (memoryview): the
        # buffer takes the next line only once this one is handled.
        line, self.length = memoryview(self.buffer)[:self.length], 0
        if self.overlong:
            self.send({"ok": False, "error": self.overlong})
            self.overlong = False
        elif not _blank(line):
            self._handle(line)

    # ---- one command ----

    def _handle(self, line):
        parsed = True
        try:
            # json.loads alone takes lines that are not JSON (and not UTF-8).
            floats = strict_json(line, len(line) >= _FAST_CHECK)
            command = _loads(line)
        except (ValueError, UnicodeError):  # MicroPython raises ValueError for both
            command, parsed, floats = None, False, False
        except MemoryError:  # nothing done yet: the line is refused, play goes on
            self.send({"ok": False, "error": "no memory free to read this line now"})
            return
        if len(line) > MAX_LINE and not (isinstance(command, dict)
                                         and command.get("cmd") == "round"):
            self.send({"ok": False, "error": "line longer than %d bytes" % MAX_LINE})
            return
        if not parsed:
            self.send({"ok": False, "error": "not a JSON line"})
            return
        if floats and not _finite(command):  # (a line without a float holds none)
            # 1e400 parses to inf, which no JSON reply could echo back.
            self.send({"ok": False, "error": "numbers must be finite"})
            return
        if not isinstance(command, dict) or not isinstance(command.get("cmd"), str):
            self.send({"ok": False, "error": "a command is an object with a \"cmd\" string"})
            return
        reply = self._dispatch(command)
        if reply is None:  # a log export, which replies at its end
            return
        if "id" in command:
            reply["id"] = command["id"]
        # A round's parsed line is let go before its reply is made: the two
        # together were the round's peak, past a WROOM's heap (docs/heap.md).
        del command
        self.send(reply)

    def _reply(self, command, reply):
        if "id" in command:
            reply["id"] = command["id"]
        self.send(reply)

    def _dispatch(self, command):
        name = command["cmd"]
        if name not in COMMANDS:
            return {"ok": False, "error": "unknown command %r" % name}
        handler = getattr(self, "_" + name)
        try:
            return handler(command)
        except Refused as error:
            return {"ok": False, "error": str(error)}
        except MemoryError:
            raise  # the heap's, not the command's: the board's loop reports it (app.py)
        except Exception as error:  # noqa: BLE001 -- a handler's bug: its own reply, counted
            return self._internal_error(error)

    def _internal_error(self, error):
        # An exception no command expects is a bug in the firmware: its reply
        # says so, naming the exception, and is never a refusal; `status`
        # counts them.
        self.internal_errors += 1
        name = type(error).__name__
        message = str(error)[:_MESSAGE_MAX]
        return {"ok": False, "error": "internal error: %s: %s" % (name, message),
                "internal": {"type": name, "message": message}}

    def _ping(self, command):
        return {"ok": True, "reply": "pong"}

    def _status(self, command):
        status = self.table.status()
        status.update(self.identity)
        if self.heap is not None:
            status["heap"] = self.heap.status()
        status["internal_errors"] = self.internal_errors
        status.update(ok=True, reply="status")
        return status

    def _meters(self, command):
        return {"ok": True, "reply": "meters", "meters": self.table.bonus.meters()}

    def _log(self, command):
        since = command.get("since", 0)
        if type(since) is not int or since < 0:
            raise Refused("since must be a record number, 0 or more")
        self.export = _Export(command, iter(self.table.bonus.log_export(since)), self.send)
        return None

    def _export_slice(self):
        # One step of the export under way (a log's or a digest's): each
        # gives None until it is done, then the command's reply.
        export = self.export
        try:
            reply = export.step()
        except MemoryError:
            raise  # the heap's: the board's loop reports it, and the export goes on
        except Exception as error:  # noqa: BLE001 -- an export's bug: its own reply, counted
            reply = self._internal_error(error)
        if reply is not None:
            self.export = None
            self._reply(export.command, reply)

    def _authenticate(self, command):
        if self.program is None:
            raise Refused("this board names no program to authenticate")
        from .authenticate import Authentication  # loaded when asked: rare, and heap is dear

        self.export = Authentication(command, self.program)
        return None

    def _config(self, command):
        name = command.get("mystery")
        if not isinstance(name, str):
            raise Refused("config needs \"mystery\": a configuration name such as \"B2\"")
        self.table.configure(name)
        # The sections now in force, their dates, and a warning when past them.
        return {"ok": True, "reply": "config", "mystery": name, "rules": self.table.rules()}

    def _redraw(self, command):
        record = self.table.redraw()
        return {"ok": True, "reply": "redraw", "cycle": record["cycle"],
                "commitment": record["commitment"]}

    def _settlement_fits(self):
        # A heap too small for settlement refuses rounds and the paytables they use.
        if self.heap is not None and self.heap.no_settlement is not None:
            raise Refused(self.heap.no_settlement)

    def _round(self, command):
        self._settlement_fits()
        # The command's own fields aside, the rest is the round as `uthctl settle` reads it.
        data = {key: value for key, value in command.items() if key not in ("cmd", "id")}
        result, seq = self.table.settle_round(data)
        reply = {"ok": True, "reply": "round", "seq": seq, "seats": result["seats"]}
        if "round" in result:
            reply["round"] = result["round"]
        return reply

    def _set(self, command):
        name = command.get("name")
        if name == "paytables":
            self._settlement_fits()
        if not isinstance(name, str) or "value" not in command:
            raise Refused("set needs \"name\", a setting's name, and \"value\"")
        record = self.table.change_setting(name, command["value"])
        return {"ok": True, "reply": "set", "name": name, "was": record["was"],
                "value": record["value"]}

    def _clock(self, command):
        # The board's date and time; with "set", set first, in service mode
        # only: the clock decides which regulations the board says are in
        # force. Or, an unset clock, by the floor's set signed with the
        # record key ("auth": mystery/clock_signed.py).
        if self.clock is None:
            raise Refused("this board has no calendar clock")
        reply = {"ok": True, "reply": "clock"}
        if "set" in command:
            when = checked_time(command["set"])
            signed = "auth" in command
            if signed:
                from mystery.clock_signed import check

                check(self.table.bonus, when, command["auth"])
            else:
                self.table.in_service("the clock is set only in service mode",
                                      ": hold the key switch")
            reply["was"] = list(self.clock.read())
            self.clock.set(list(when))
            self.table.clock_set(reply["was"], self.clock.read(), "floor" if signed else "key")
        now = self.clock.read()
        date = "%04d-%02d-%02d" % now[:3]
        reply.update(datetime=list(now), date=date, clock=expiry.clock_state(date))
        return reply

    def _provision(self, command):
        # The key is checked and kept by the store; only its id comes back.
        if not isinstance(command.get("key"), str):
            raise Refused("provision needs \"key\": the record key, 64 lower-case hex digits")
        record = self.table.provision(command["key"])
        return {"ok": True, "reply": "provision", "key_id": record["key_id"],
                "seq": record["seq"]}

    def _seed(self, command):
        # The host's randomness goes to the generator; nothing of it comes back.
        record = self.table.seed(command.get("entropy"))
        return {"ok": True, "reply": "seed", "drbg": self.table.bonus.generator(),
                "seq": record["seq"]}

    def _accept_program(self, command):
        # The program running accepted in service mode (controller.py): its record's fields.
        record = self.table.accept_program()
        return {"ok": True, "reply": "accept_program", "digest": record["digest"],
                "was": record["was"], "seq": record["seq"]}

    def _repl(self, command):
        # The port handed to MicroPython's REPL, with the key switch held:
        # the `repl` record first (its seq; None when the store took none),
        # then this reply, then the board's loop ends (app.py).
        records = self.table.open_repl()
        self.handed_off = True
        return {"ok": True, "reply": "repl", "seq": records[0]["seq"] if records else None,
                "exposed": bool(records) and records[0]["exposed"]}

    def _head(self, command):
        # Answered in every state: the floor asks it of a table in a fault too.
        nonce = command.get("nonce")
        if not _is_nonce(nonce):
            raise Refused("head needs \"nonce\": %d to %d lower-case hex digits, an even "
                          "number of them" % (_NONCE_MIN, _NONCE_MAX))
        reply = self.table.bonus.head(nonce)
        reply.update(ok=True, reply="head")
        return reply

    def _collected(self, command):
        # The log collected up to "seq": "auth" the floor's confirmation
        # with the record key; none, only with the key switch held
        # (docs/host-link.md, "Collected").
        mark = self.table.confirm_collected(command.get("seq"), command.get("auth"))
        store = self.table.bonus.store
        return {"ok": True, "reply": "collected", "collected": mark,
                "uncollected": store.uncollected(), "capacity": store.capacity()}

    def _validation(self, command):
        employee = command.get("employee")
        if employee is None:
            raise Refused("validation needs \"employee\", the validating employee's number")
        self.table.set_validation(employee, command.get("slip"))
        return {"ok": True, "reply": "validation", "employee": employee,
                "slip": command.get("slip")}

    def _payment(self, command):
        self.table.set_payment(command.get("method"))
        return {"ok": True, "reply": "payment", "method": self.table.payment}


class _Export:
    # A log command being answered: its records still to send, those sent.
    # step() sends a few, as authenticate.Authentication hashes a piece.
    def __init__(self, command, records, send):
        self.command = command
        self.records = records
        self.send = send
        self.count = 0

    def step(self):
        # None while records remain; then the command's reply.
        try:
            for _ in range(LOG_SLICE):
                record = next(self.records)
                if record is not None:  # None: a record before "since", read and skipped
                    self.send({"reply": "log", "record": record})
                    self.count += 1
            return None
        except StopIteration:
            return {"ok": True, "reply": "log", "count": self.count}
        except LogTrimmed as error:
            # What was sent is true, but the rest was removed under the export.
            return {"ok": False, "error": "log export interrupted: records from %d on were "
                    "trimmed meanwhile; export again from %d" % (error.next_seq, error.next_seq)}
        except (OSError, ValueError) as error:
            # The flash failed, or holds a line that is not a record: the
            # count so far is not the log.
            return {"ok": False, "error": "log export: the log cannot be read: %s" % error}


def _is_nonce(nonce):
    return (isinstance(nonce, str) and _NONCE_MIN <= len(nonce) <= _NONCE_MAX
            and not len(nonce) % 2 and not nonce.strip("0123456789abcdef"))


def _unsent(message):
    # The short line sent instead of one the heap could not hold.
    if "ev" in message:
        return '{"ev": "unsent", "was": "%s", "reason": "no memory free to send it"}' % (
            message["ev"],)
    return '{"ok": false, "id": %s, "error": "no memory free to send this reply"}' % (
        json.dumps(message.get("id")),)
