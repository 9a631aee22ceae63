# uthctl sim (interactive): the virtual table in a terminal. It starts the
# virtual board (vboard.py) and is then a host like any other: the person's
# keys move the table's pins through the rig port (rig.py), and the table's
# state, meters and events come over the board's serial link (link.py).
#
#   threads   main     curses: draws, reads keys, polls the rig's pin state
#             link     the one reader of the serial port: events, replies,
#                      and a status/meters poll twice a second (none while the
#                      board sits at its REPL, which would echo each poll)
#             hands    the person's (or auto-play's) actions, one at a time
#
# Auto-play is a rig feature, not a firmware one: it places chips, presses
# LOCK and takes the chips away as a dealer would, round after round, until
# a hit, so a person can watch the meter climb and reach a hit in a minute
# or two. The firmware's random hit value is untouched (unless the TEST-ONLY
# seed was asked for, which the screen then says in red).
import curses
import importlib.util
import io
import json
import locale
import os
import queue
import re
import signal
import socket
import threading
import time
from collections import deque

from mystery import configs

from ..boards.virtual import REPO, SEATS, VirtualBoard
from ..commands.meters import money
from ..links.hostlink import Link, LinkError, reset_command
from ..links.rig import PRESS_MS, Rig, RigError, lit

MIN_WIDTH, MIN_HEIGHT = 80, 24
LED_DIGITS = 8  # the MAX7219 meter's digits
POLL_S = 0.5  # status and meters over the host link
COMMAND_TIMEOUT = 3.0
REOPEN_HOLD_S = 2.5  # LOCK held this long reopens betting (the firmware needs 2 s)
AUTO_STEP_TIMEOUT = 3.0
AUTO_SETTLE_S = 0.045  # the firmware's 30 ms debounce, and a margin
UTH_KEYS = "!@#$%^"  # shift 1-6 on a US keyboard; `u` then 1-6 on any keyboard
STATE_NAMES = {"betting": "BETTING", "locked": "LOCKED", "hit_pending": "HIT PENDING",
               "service": "SERVICE", "unconfigured": "UNCONFIGURED", "fault": "FAULT"}
_QUICKACK = getattr(socket, "TCP_QUICKACK", None)
HELP = ("1-6 chip  !-^ or u,1-6 UTH wager  0 all chips off  l LOCK  L hold LOCK 2.5 s",
        "k turn key  s hold key  c config  p payment  a auto-play  r reset board  q quit")
# A failed commit left the cycle's hit value on flash: no round until redrawn.
EXPOSED_HEADLINE = "hit value EXPOSED: hold key (s), then d redraws"
# A line the board printed that names an error ("OSError: flash image ...").
_ERROR_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception|Interrupt): ")


# ---- the LED meter, drawn with the firmware's own seven-segment font ----


def _load_font():
    # firmware/table/sevenseg.py, the font and layout the real meters use.
    path = REPO / "firmware" / "table" / "sevenseg.py"
    spec = importlib.util.spec_from_file_location("_uthctl_sevenseg", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_sevenseg = _load_font()

# Segment bits, MAX7219 no-decode order (sevenseg.py): DP A B C D E F G.
_DP, _A, _B, _C, _D, _E, _F, _G = 0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01
_STROKES = {True: ("━━", "┃", "●"), False: ("--", "|", ".")}


def led_rows(text, digits=LED_DIGITS, fancy=True):
    # The meter as 5 rows of text, each digit 4 columns, its point and a gap
    # after it; ValueError when the board's font cannot show the text.
    out = bytearray(digits)
    _sevenseg.render(text, out)
    rows = [[] for _ in range(5)]
    for segments in out:
        for row, cell in zip(rows, _digit(segments, *_STROKES[fancy]), strict=True):
            row.append(cell)
    return ["".join(row).rstrip() for row in rows]


def _digit(s, bar, post, point):
    def across(segment):
        return " %s " % bar if s & segment else "    "

    def down(left, right):
        return (post if s & left else " ") + "  " + (post if s & right else " ")

    dot = point if s & _DP else " "
    return (across(_A) + "  ", down(_F, _B) + "  ", across(_G) + "  ", down(_E, _C) + "  ",
            across(_D) + dot + " ")


# ---- events as one line each ----


def describe(event):
    # A board event, compactly: "locked round 3, meter $100.06".
    ev = event.get("ev")
    g = event.get

    def cash(field):
        value = g(field)
        return money(value) if isinstance(value, int) else "?"

    if ev == "started":
        return "board started (%s)" % g("state")
    if ev == "config":
        return "config %s (was %s)" % (g("config"), g("was") or "none")
    if ev == "reset":
        return "reset: cycle %s, %s, meter %s, commitment %s..." % (
            g("cycle"), g("config"), cash("meter"), str(g("commitment") or "")[:16])
    if ev == "locked":
        return "locked round %s, meter %s" % (g("round"), cash("meter"))
    if ev == "contribution":
        return "contribution seat %s %s" % (g("seat"), cash("amount"))
    if ev == "hit":
        return "HIT seat %s %s (round %s; hit value %s revealed)" % (
            g("seat"), cash("award"), g("round"), cash("hit_value"))
    if ev == "validated":
        return "validated seat %s %s" % (g("seat"), cash("award"))
    if ev == "paid":
        return "paid seat %s %s by %s" % (g("seat"), cash("award"),
                                          str(g("payment")).replace("_", " "))
    if ev == "fault":
        return "FAULT: %s" % g("reason")
    if ev == "store_warning":
        return "store warning: %s" % g("reason")
    if ev == "refused":
        return "refused: %s" % g("reason")
    if ev == "redraw":
        return "redraw: cycle %s, hit value %s revealed, new commitment %s..." % (
            g("cycle"), cash("hit_value"), str(g("commitment") or "")[:16])
    return json.dumps(event, separators=(",", ":"))


def event_style(event):
    ev = event.get("ev")
    if ev in ("hit", "validated", "paid"):
        return "hit"
    if ev in ("fault", "refused", "store_warning"):
        return "error"
    if ev in ("config", "reset", "started", "redraw"):
        return "head"
    return "normal"


# ---- the host link, one reader ----


class HostLink(threading.Thread):
    # Owns the serial port's reading: events and board lines go to `inbox`,
    # replies to whoever waits for them; status and meters are asked twice a
    # second (and soon after any action), the latest kept in .status/.meters.
    def __init__(self, link, poll_s=POLL_S):
        super().__init__(name="uthctl-link", daemon=True)
        self.link = link
        self.poll_s = poll_s
        self.inbox = deque(maxlen=2000)  # ("event", dict) or ("line", text)
        self.status = None
        self.meters = None
        self.failure = None
        self.answered_at = None  # when the board last replied (time.monotonic())
        self.at_repl = None  # why the board is taken to be at its REPL; no polls then
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._waiting = {}  # id -> [threading.Event, reply]
        self._next_id = 1
        self._poll_at = 0.0
        self._polled_at = 0.0
        self._polls = {}  # id -> "status" or "meters", with its deadline
        self._stopping = threading.Event()

    def stop(self):
        self._stopping.set()

    def resume(self):
        # After a reset: poll again at once (a board still at its REPL shows it again).
        self.link.at_repl = None
        self.at_repl = None
        self._poll_at = 0.0

    def poll_soon(self):
        # After an event or an action; at most ten polls a second.
        self._poll_at = min(self._poll_at, self._polled_at + 0.1)

    def command(self, cmd, timeout=COMMAND_TIMEOUT, **fields):
        # From any thread: one command, its reply (LinkError if none in time).
        if self.at_repl:
            raise LinkError("the board is at its REPL (%s): its controller is stopped; r "
                            "resets the board" % self.at_repl)
        done = threading.Event()
        with self._lock:
            number, self._next_id = self._next_id, self._next_id + 1
            self._waiting[number] = [done, None]
        try:
            self._send(dict(fields, cmd=cmd, id=number))
            if not done.wait(timeout):
                raise LinkError("no reply to %r from the board within %.1f s" % (cmd, timeout))
            return self._waiting[number][1]
        finally:
            with self._lock:
                self._waiting.pop(number, None)

    def _send(self, message):
        with self._write_lock:
            self.link.send(message)

    def run(self):
        while not self._stopping.is_set():
            try:
                self._step()
                self.failure = None
            except (OSError, ValueError) as error:
                if self._stopping.is_set():
                    return
                self.failure = str(error)
                time.sleep(0.2)

    def _step(self):
        now = time.monotonic()
        for number, (_, deadline) in list(self._polls.items()):
            if now > deadline:
                del self._polls[number]
        if now >= self._poll_at and not self._polls and not self.at_repl:
            self._poll_at = now + self.poll_s
            self._polled_at = now
            for name in ("status", "meters"):
                with self._lock:
                    number, self._next_id = self._next_id, self._next_id + 1
                self._polls[number] = (name, now + COMMAND_TIMEOUT)
                self._send({"cmd": name, "id": number})
        message = self.link.read_message(0.05)
        for line in self.link.other:
            text = line.decode("utf-8", "replace").strip()
            if text:
                self.inbox.append(("line", text))
        self.link.other.clear()
        self.at_repl = self.link.repl_evidence(since=self._polled_at)
        if message is None:
            return
        self.answered_at = time.monotonic()
        if "ev" in message:
            self.inbox.append(("event", message))
            self.poll_soon()
            return
        number = message.get("id")
        poll = self._polls.pop(number, None) if isinstance(number, int) else None
        if poll is not None:
            if message.get("ok"):
                if poll[0] == "status":
                    self.status = message
                else:
                    self.meters = message.get("meters")
            return
        with self._lock:
            waiter = self._waiting.get(number) if isinstance(number, int) else None
            if waiter is not None:
                waiter[1] = message
                waiter[0].set()


# ---- the person's hands: pins through the rig, commands over the link ----


class TableRig(Rig):
    # The rig client, quicker: several pins in one go, and no 40 ms stalls
    # between answers (the supervisor writes each answer as it comes; with
    # Nagle on its side and delayed ACKs on ours, the second waits for a
    # timer). TCP_QUICKACK is Linux's; elsewhere answers are just slower.
    def __init__(self, address, timeout=5.0):
        super().__init__(address, timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _line(self):
        if _QUICKACK is not None and b"\n" not in self.buffer:
            self.sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
        return super()._line()

    def set_many(self, levels):
        # Several pins at once: all requests sent, then every answer read
        # (each comes once the board applied its level).
        self.sock.sendall(b"".join(json.dumps({"op": "set", "pin": pin, "level": level})
                                   .encode() + b"\n" for pin, level in levels))
        for _ in levels:
            reply = json.loads(self._line())
            if not reply.get("ok"):
                raise RigError("rig: %s" % reply.get("error", "refused"))


class Hands(threading.Thread):
    def __init__(self, rig, host, say):
        super().__init__(name="uthctl-hands", daemon=True)
        self.rig = rig
        self.host = host
        self.say = say  # say(text, style)
        self.jobs = queue.Queue()
        self.autoplaying = threading.Event()  # set from the key press to the job's end
        self.auto_stop = threading.Event()
        self.auto = None  # {"seats", "rounds", "since"} while auto-play runs
        self._lock_free_at = 0.0  # auto-play presses LOCK again from then

    def do(self, job, *args):
        self.jobs.put((job, args))

    def stop(self):
        self.auto_stop.set()
        self.jobs.put(None)

    def run(self):
        while True:
            item = self.jobs.get()
            if item is None:
                return
            job, args = item
            try:
                job(*args)
            except Exception as error:  # shown on screen; the hands go on
                self.say(str(error) or type(error).__name__, "error")
            finally:
                self.host.poll_soon()

    # ---- pins ----

    def _level(self, pin):
        return self.rig.state()["inputs"].get(pin, 0)

    def toggle_chip(self, seat):
        level = 1 - self._level("bet%d" % seat)
        self.rig.chip(seat, level)
        self.say("seat %d: chip %s" % (seat, "placed" if level else "taken"), "normal")

    def toggle_uth(self, seat):
        level = 1 - self._level("uth%d" % seat)
        self.rig.uth(seat, level)
        self.say("seat %d: UTH wager %s" % (seat, "placed" if level else "taken"), "normal")

    def clear_chips(self):
        self.rig.set_many([("bet%d" % n, 0) for n in range(1, SEATS + 1)])
        self.say("every chip taken", "normal")

    def press_lock(self):
        self.rig.press_lock(PRESS_MS)
        self.say("LOCK pressed", "normal")

    def hold_lock(self):
        self.say("holding LOCK for %.1f s..." % REOPEN_HOLD_S, "normal")
        self.rig.press_lock(int(REOPEN_HOLD_S * 1000))
        self.say("LOCK released after %.1f s" % REOPEN_HOLD_S, "normal")

    def turn_key(self):
        if self._level("key"):
            self.say("the key is held (service mode): release it with s", "error")
            return
        self.rig.turn_key(PRESS_MS)
        self.say("key turned and released", "normal")

    def toggle_key(self):
        level = 1 - self._level("key")
        self.rig.key(level)
        self.say("key %s" % ("held: service mode" if level else "released"), "normal")

    def reset_board(self, board):
        # As a technician's power cycle (`mpremote reset` on a board).
        board.reset()
        self.host.resume()
        self.say("board reset (a power cycle): the controller starts again", "head")

    # ---- commands ----

    def configure(self, name):
        reply = self.host.command("config", mystery=name)
        if reply.get("ok"):
            self.say("configuration %s taken; release the key (s) to play" % name, "head")
        else:
            self.say("the board refused %s: %s" % (name, reply.get("error")), "error")

    def redraw(self):
        # The recovery from an exposed hit value (README): one logged redraw.
        reply = self.host.command("redraw")
        if reply.get("ok"):
            self.say("cycle %s's hit value redrawn, commitment %s...; release the key (s) to "
                     "play" % (reply.get("cycle"), str(reply.get("commitment"))[:16]), "head")
        else:
            self.say("the board refused the redraw: %s" % reply.get("error"), "error")

    def toggle_payment(self):
        status = self.host.command("status")
        method = "jackpot_slip" if status.get("payment") == "table_inventory" \
            else "table_inventory"
        reply = self.host.command("payment", method=method)
        if reply.get("ok"):
            self.say("a validated hit will be paid by %s" % method.replace("_", " "), "normal")
        else:
            self.say("the board refused: %s" % reply.get("error"), "error")

    # ---- auto-play ----

    def _await_state(self, wanted, what):
        # Polls the board's status until its state is one of `wanted`.
        deadline = time.monotonic() + AUTO_STEP_TIMEOUT
        while True:
            status = self.host.command("status")
            if status.get("state") in wanted:
                return status
            if time.monotonic() > deadline:
                raise LinkError("auto-play: the board did not %s (it is %s)"
                                % (what, status.get("state")))
            time.sleep(0.003)

    def autoplay(self):
        try:
            self._autoplay()
        finally:
            self.auto = None
            self.autoplaying.clear()

    def _autoplay(self):
        status = self.host.command("status")
        inputs = self.rig.state()["inputs"]
        seats = [n for n in range(1, SEATS + 1) if inputs.get("bet%d" % n)] or list(
            range(1, SEATS + 1))
        chips = ["bet%d" % n for n in seats]
        if status.get("state") == "locked":
            # A round under way ends as a dealer ends it: the chips come off.
            self.rig.set_many([(pin, 0) for pin in chips])
            status = self._await_state(("betting",), "end the round")
        if status.get("state") != "betting":
            self.say("auto-play starts from betting (the table is %s)"
                     % STATE_NAMES.get(status.get("state"), status.get("state")), "error")
            return
        # A dealer's round: a UTH wager (where the board wires its sensor: the
        # Pico does not) and a progressive chip at each seat.
        self.rig.set_many([("uth%d" % n, 1) for n in seats if "uth%d" % n in inputs])
        self.auto = {"seats": seats, "rounds": 0, "since": time.monotonic()}
        self.say("auto-play: seats %s, round after round until a hit (a stops)"
                 % " ".join(map(str, seats)), "head")
        try:
            while not self.auto_stop.is_set():
                if self._auto_round(seats, chips):
                    self.say("auto-play: a hit after %d rounds; turn the key (k) to validate"
                             % self.auto["rounds"], "hit")
                    return
        finally:
            try:
                self.rig.set("lock", 0)  # never left pressed
            except OSError:
                pass
        self.say("auto-play stopped after %d rounds" % self.auto["rounds"], "normal")

    def _auto_round(self, seats, chips):
        # One round as a dealer plays it; True when it hit. Each pin waits for
        # the board to have seen the one before: the firmware ignores a pin for
        # 30 ms after each change it acts on, so LOCK pressed while a chip is
        # still settling would lock a round without it, and LOCK pressed again
        # before its release was seen would be no press at all.
        self.rig.set_many([(pin, 1) for pin in chips])
        self.rig.wait_for(lambda s: set(lit(s["bet_lights"])) >= set(seats), AUTO_STEP_TIMEOUT,
                          0.003, "the bet lights of seats %s" % " ".join(map(str, seats)))
        time.sleep(max(0.0, self._lock_free_at - time.monotonic()))
        self.rig.set("lock", 1)
        status = self._await_state(("locked", "hit_pending"), "lock the round")
        self._lock_free_at = time.monotonic() + AUTO_SETTLE_S
        self.rig.set("lock", 0)
        self.auto["rounds"] += 1
        if status["state"] == "hit_pending":
            return True
        self.rig.set_many([(pin, 0) for pin in chips])
        self._await_state(("betting",), "end the round")
        return False


# ---- what the screen shows ----


class Canvas:
    # Text placed at (row, column) with a style; the painter turns it into
    # curses calls, tests into plain text.
    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.items = []

    def put(self, row, col, text, style="normal"):
        if 0 <= row < self.height and col < self.width:
            self.items.append((row, col, text[:max(0, self.width - col)], style))

    def text(self):
        rows = [[" "] * self.width for _ in range(self.height)]
        for row, col, text, _ in self.items:
            for i, ch in enumerate(text):
                if 0 <= col + i < self.width:
                    rows[row][col + i] = ch
        return "\n".join("".join(r).rstrip() for r in rows)


class TableView:
    def __init__(self, board, host, hands, rig, seed=None, fancy=True):
        self.board = board
        self.host = host
        self.hands = hands
        self.rig = rig  # the main thread's own rig connection: pin state
        self.seed = seed
        self.fancy = fancy
        self.pins = None
        self.rig_error = None
        self.events = deque(maxlen=500)  # (time text, line, style)
        self.message = ("", "normal", 0.0)
        self.menu = None  # the configuration being pointed at while choosing
        self.uth_prefix = False
        self.fault = None  # the controller's fault, from a fault event or its status
        self._status_at_fault = None  # the status current when the fault event came
        self.board_error = None  # the last error line the board printed
        self._messages = deque()
        hands.say = self.say

    def say(self, text, style="normal"):
        self._messages.append((text, style))  # any thread; taken by update()

    def note(self, text, style="normal"):
        self.events.append((time.strftime("%H:%M:%S"), text, style))

    # ---- state ----

    def update(self):
        while self._messages:
            text, style = self._messages.popleft()
            self.message = (text, style, time.monotonic())
        while self.host.inbox:
            kind, item = self.host.inbox.popleft()
            if kind == "event":
                self.note(describe(item), event_style(item))
                if item.get("ev") == "fault":
                    self.fault = item.get("reason") or "no reason given"
                    self._status_at_fault = self.host.status
                elif item.get("ev") == "started":
                    self.board_error = None  # a new boot
            else:
                self.note("board: " + item, "dim")
                if _ERROR_LINE.match(item):
                    self.board_error = item
        status = self.host.status
        if status and status.get("state") == "fault":
            self.fault = status.get("fault") or self.fault or "no reason given"
        elif status and status is not self._status_at_fault:
            self.fault = None  # a status newer than the fault: the board recovered
        try:
            self.pins = self.rig.state()
            self.rig_error = None
        except (OSError, ValueError) as error:
            self.rig_error = str(error)

    def state(self):
        status = self.host.status
        return status.get("state") if status else None

    # ---- keys ----

    def key(self, ch):
        # False to quit.
        char = chr(ch) if 0 <= ch < 0x110000 else ""
        if self.menu is not None:
            self._menu_key(ch, char)
            return True
        if self.uth_prefix:
            self.uth_prefix = False
            if char in "123456" and char:
                self._pins(self.hands.toggle_uth, int(char))
            else:
                self.say("UTH wager: no seat chosen", "normal")
            return True
        if char == "q":
            return False
        if char == "a":
            if self.hands.autoplaying.is_set():
                self.hands.auto_stop.set()
                self.say("auto-play stops after this round", "normal")
            else:
                self.hands.auto_stop.clear()
                self.hands.autoplaying.set()
                self.hands.do(self.hands.autoplay)
        elif char in "123456" and char:
            self._pins(self.hands.toggle_chip, int(char))
        elif char in UTH_KEYS and char:
            self._pins(self.hands.toggle_uth, UTH_KEYS.index(char) + 1)
        elif char == "u":
            self.uth_prefix = True
            self.say("UTH wager at which seat (1-6)?", "head")
        elif char == "0":
            self._pins(self.hands.clear_chips)
        elif char == "l":
            self._pins(self.hands.press_lock)
        elif char == "L":
            self._pins(self.hands.hold_lock)
        elif char == "k":
            self._pins(self.hands.turn_key)
        elif char == "s":
            self._pins(self.hands.toggle_key)
        elif char == "c":
            if self.state() == "service":
                names = configs.NAMES
                current = (self.host.meters or {}).get("config")
                self.menu = [names.index(current) if current in names else 0, ""]
            else:
                self.say("configuration changes only in service mode: hold the key (s) "
                         "first", "error")
        elif char == "p":
            self.hands.do(self.hands.toggle_payment)
        elif char == "d":
            if self.state() == "service":
                self.hands.do(self.hands.redraw)
                self.say("asking the board to redraw the hit value...", "normal")
            else:
                self.say("a redraw only in service mode: hold the key (s) first", "error")
        elif char == "r":
            self._pins(self.hands.reset_board, self.board)
        elif ch != -1 and ch != curses.KEY_RESIZE:
            self.say("keys are on the bottom lines; q quits", "normal")
        return True

    def _pins(self, job, *args):
        if self.hands.autoplaying.is_set():
            self.say("auto-play is playing the table: press a to stop it first", "error")
            return
        self.hands.do(job, *args)

    def _menu_key(self, ch, char):
        names = configs.NAMES
        index, typed = self.menu
        if ch in (curses.KEY_UP,):
            self.menu = [(index - 1) % len(names), ""]
        elif ch in (curses.KEY_DOWN,):
            self.menu = [(index + 1) % len(names), ""]
        elif ch in (10, 13, curses.KEY_ENTER):
            self.menu = None
            self.hands.do(self.hands.configure, names[index])
            self.say("sending configuration %s..." % names[index], "normal")
        elif ch == 27 or char in ("q", "c"):
            self.menu = None
            self.say("no configuration chosen", "normal")
        elif char.upper() in "ABCD" and char:
            self.menu = [next(i for i, n in enumerate(names) if n[0] == char.upper()),
                         char.upper()]
        elif char in "125" and char and typed:
            name = typed + char
            if name in names:
                self.menu = [names.index(name), ""]

    # ---- drawing ----

    def draw(self, canvas):
        w, h = canvas.width, canvas.height
        if w < MIN_WIDTH or h < MIN_HEIGHT:
            canvas.put(0, 0, "uthctl sim needs a terminal of at least %dx%d (this one is "
                       "%dx%d); q quits" % (MIN_WIDTH, MIN_HEIGHT, w, h), "error")
            return
        self._title(canvas)
        self._led(canvas, 1, 0)
        self._meters(canvas, 1, 54)
        self._seats(canvas, 8, 0)
        self._inputs(canvas, 8, 54)
        self._hint(canvas, 15)
        self._events(canvas, 17, h - 3)
        canvas.put(h - 2, 0, HELP[0], "help")
        canvas.put(h - 1, 0, HELP[1], "help")
        if self.menu is not None:
            self._menu(canvas)

    def headline(self):
        # The header's state, its style and what follows it. A stopped
        # controller and a fault stay here, whatever scrolls past below.
        state = self.state()
        if self.host.at_repl:
            return "AT THE REPL", "error", self.board_error or "controller stopped; r resets"
        if state == "fault" or self.fault:
            return "FAULT", "error", self.fault
        text = STATE_NAMES.get(state, state) if state else "starting..."
        style = {"hit_pending": "hit", "unconfigured": "error",
                 "service": "warn"}.get(state, "on")
        meters = self.host.meters
        if meters and meters.get("exposed"):
            return text, "error", EXPOSED_HEADLINE
        if meters and meters.get("config"):
            return text, style, "%s  cycle %d  round %d" % (meters["config"], meters["cycle"],
                                                             meters["round"])
        return text, style, self.board_error or ""

    def _title(self, c):
        text, style, detail = self.headline()
        c.put(0, 0, "uthctl sim", "head")
        c.put(0, 12, "state ", "normal")
        c.put(0, 18, text, style)
        label = " TEST SEED %d " % self.seed if self.seed is not None else ""
        room = c.width - (18 + len(text) + 2) - len(label) - 1
        if detail and room > 0:
            detail = detail if len(detail) <= room else detail[:room - 3] + "..."
            c.put(0, 18 + len(text) + 2, detail, style if style == "error" else "normal")
        if self.seed is not None:  # the events say: never for play
            c.put(0, c.width - len(label), label, "seed")

    def _box(self, c, row, col, width, height, title, bottom=""):
        h_line, v_line, corners = ("─", "│", "┌┐└┘") if self.fancy else ("-", "|", "++++")
        c.put(row, col, corners[0] + h_line * (width - 2) + corners[1], "frame")
        for r in range(row + 1, row + height - 1):
            c.put(r, col, v_line, "frame")
            c.put(r, col + width - 1, v_line, "frame")
        c.put(row + height - 1, col, corners[2] + h_line * (width - 2) + corners[3], "frame")
        c.put(row, col + 2, " %s " % title, "head")
        if bottom:
            c.put(row + height - 1, col + width - len(bottom) - 4, " %s " % bottom, "bold")

    def _led(self, c, row, col):
        pins = self.pins
        text = pins.get("display") if pins else None
        shown = '"%s"' % text if text is not None else "dark"
        self._box(c, row, col, 52, 7, "LED meter", "display %s" % shown)
        if text is None:
            return
        try:
            rows = led_rows(text, fancy=self.fancy)
        except ValueError:
            c.put(row + 3, col + 3, text, "led")
            return
        for i, line in enumerate(rows):
            c.put(row + 1 + i, col + 2, line, "led")

    def _meters(self, c, row, col):
        c.put(row, col, "Meters (host link)", "head")
        m = self.host.meters
        if not m:
            c.put(row + 1, col, "waiting for the board...", "dim")
            return
        lines = [("meter", money(m["meter"])), ("contributed", money(m["contributed"])),
                 ("seeded", money(m["seeded"])), ("paid", money(m["paid"]))]
        for i, (name, value) in enumerate(lines):
            c.put(row + 1 + i, col, "%-12s %s" % (name, value), "bold" if i == 0 else "normal")
        c.put(row + 5, col, "hits %d  phase %s" % (m["hits"], m["phase"]), "normal")
        if m.get("exposed"):
            c.put(row + 6, col, "EXPOSED: s, then d redraws", "error")
        elif m.get("pending"):
            seat, award = m["pending"][:2]
            c.put(row + 6, col, "pending  seat %d %s" % (seat, money(award)), "hit")
        elif m.get("last_hits"):
            seat, award = m["last_hits"][-1][:2]
            c.put(row + 6, col, "last hit seat %d %s" % (seat, money(award)), "normal")
        elif m.get("commitment"):
            c.put(row + 6, col, "commit %s..." % m["commitment"][:16], "dim")

    def _seats(self, c, row, col):
        on, off, star = ("●", "○", "★") if self.fancy else ("[x]", "[ ]", "<*>")
        c.put(row, col, "seat  prog.chip UTH wager  bet light  jackpot", "head")
        pins = self.pins or {}
        inputs = pins.get("inputs", {})
        bets = pins.get("bet_lights", [0] * SEATS)
        jackpots = pins.get("jackpot_lights", [0] * SEATS)
        for n in range(1, SEATS + 1):
            r = row + n
            c.put(r, col, "%3d" % n, "bold")
            chip = inputs.get("bet%d" % n)
            c.put(r, col + 6, "%s %s" % (on, "chip") if chip else "%s -" % off,
                  "chip" if chip else "dim")
            uth = inputs.get("uth%d" % n)
            c.put(r, col + 16, "%s %s" % (on, "wager") if uth else "%s none" % off,
                  "normal" if uth else "dim")
            light = bets[n - 1]
            c.put(r, col + 27, "%s ON" % on if light else "%s off" % off,
                  "on" if light else "dim")
            jackpot = jackpots[n - 1]
            c.put(r, col + 38, "%s JACKPOT" % star if jackpot else "%s off" % off,
                  "jackpot" if jackpot else "dim")

    def _inputs(self, c, row, col):
        on, off = ("●", "○") if self.fancy else ("[x]", "[ ]")
        pins = self.pins or {}
        inputs = pins.get("inputs", {})
        status = self.host.status or {}
        lock = inputs.get("lock")
        key = inputs.get("key")
        c.put(row, col, "LOCK     %s" % ("%s PRESSED" % on if lock else "%s up" % off),
              "on" if lock else "normal")
        c.put(row + 1, col, "key      %s" % ("%s TURNED" % on if key else "%s off" % off),
              "warn" if key else "normal")
        payment = status.get("payment")
        c.put(row + 2, col, "payment  %s" % (payment.replace("_", " ") if payment else "?"))
        auto = self.hands.auto
        if auto is not None:
            rate = auto["rounds"] / max(0.001, time.monotonic() - auto["since"])
            c.put(row + 3, col, "auto     %d rounds, %.1f/s" % (auto["rounds"], rate), "warn")
        else:
            c.put(row + 3, col, "auto     off (a)", "normal")
        locked = status.get("locked_in") or []
        c.put(row + 4, col, "in round %s" % (" ".join(map(str, locked)) or "-"), "normal")
        if self.board.alive() and pins.get("board"):
            board = "running, boots %d" % pins["boots"]
        elif self.board.alive() and pins.get("powered"):
            board = "starting"
        else:
            board = "STOPPED" if not self.board.alive() else "off"
        c.put(row + 5, col, "board    %s" % board, "normal")

    def _hint(self, c, row):
        c.put(row, 0, *self.hint())
        text, style, since = self.message
        if text and time.monotonic() - since < 8.0:
            c.put(row + 1, 0, "> " + text, style)

    def hint(self):
        # What to do next: the one line a person reads first.
        if not self.board.alive():
            return ("the virtual board stopped: %s; q quits" % self.board.failure, "error")
        if self.rig_error:
            return ("rig: %s" % self.rig_error, "error")
        if self.host.failure:
            return ("host link: %s" % self.host.failure, "error")
        if self.host.at_repl:
            return ("controller stopped at the REPL: r resets (%s)"
                    % reset_command(self.board.serial_path), "error")
        answered = self.host.answered_at
        if answered is not None and time.monotonic() - answered > 2 * COMMAND_TIMEOUT:
            return ("the board's controller has not answered for %d s (is it at the REPL?)"
                    % (time.monotonic() - answered), "error")
        state = self.state()
        status = self.host.status or {}
        meters = self.host.meters or {}
        auto = self.hands.auto
        if state == "fault":
            return ("FAULT: %s; play is refused until a technician reboots the board"
                    % status.get("fault"), "error")
        if meters.get("exposed"):
            if state == "service":
                return ("service mode: d redraws the exposed hit value (a logged redraw); "
                        "then s", "error")
            return ("hit value exposed: rounds refused until redrawn; hold the key (s), then d",
                    "error")
        if auto is not None:
            return ("auto-play: round %d, the meter climbs until a hit (a stops)"
                    % auto["rounds"], "warn")
        if state == "hit_pending" and meters.get("pending"):
            seat, award = meters["pending"][:2]
            return ("HIT at seat %d: %s! turn the key (k) to validate (p: how it is paid)"
                    % (seat, money(award)), "hit")
        if state == "unconfigured":
            return ("turn on service mode (s) and choose a configuration (c)", "warn")
        if state == "service":
            if meters.get("phase") == "unconfigured":
                return ("service mode: choose a configuration (c), then release the key (s)",
                        "warn")
            return ("service mode: release the key (s) to play", "warn")
        if state == "locked":
            return ("round %s locked: take the chips (1-6, 0 all) or hold LOCK (L) to reopen"
                    % status.get("round"), "normal")
        if state == "betting":
            return ("place chips (1-6), press LOCK (l); a auto-plays rounds until a hit",
                    "normal")
        return ("waiting for the board's controller...", "dim")

    def _events(self, c, top, bottom):
        rule = "─" if self.fancy else "-"
        c.put(top, 0, rule * 2 + " events " + rule * (c.width - 10), "frame")
        rows = bottom - top
        shown = list(self.events)[-rows:] if rows > 0 else []
        for i, (stamp, text, style) in enumerate(shown):
            c.put(top + 1 + i, 0, "%s %s" % (stamp, text), style)

    def _menu(self, c):
        names = configs.NAMES
        index = self.menu[0]
        width, height = 50, len(names) + 4
        row, col = max(1, (c.height - height) // 2), (c.width - width) // 2
        for r in range(row, row + height):
            c.put(r, col, " " * width, "normal")
        self._box(c, row, col, width, height, "choose a configuration, 653b.1(c)(4)")
        for i, name in enumerate(names):
            cfg = configs.get(name)
            rate = cfg.rate_bp / 100
            line = "%s %-3s $%d chip  %4s%%  meter $%d - $%d" % (
                ">" if i == index else " ", name, cfg.min_wager_cents // 100,
                ("%g" % rate), cfg.minimum // 1_000_000, cfg.maximum // 1_000_000)
            c.put(row + 1 + i, col + 2, line.ljust(width - 4), "select" if i == index
                  else "normal")
        c.put(row + height - 2, col + 2, "arrows or a name (A1), Enter sends, Esc cancels",
              "dim")


# ---- curses ----


_STYLES = {
    # style: (foreground or None, attributes)
    "normal": (None, 0), "bold": (None, "bold"), "dim": (None, "dim"),
    "head": ("cyan", "bold"), "frame": ("blue", 0), "help": (None, "reverse"),
    "led": ("red", "bold"), "on": ("green", "bold"), "chip": ("yellow", "bold"),
    "jackpot": ("yellow", "bold reverse"), "hit": ("yellow", "bold"),
    "error": ("red", "bold"), "warn": ("magenta", "bold"), "seed": ("red", "bold reverse"),
    "select": (None, "reverse"),
}


class Painter:
    def __init__(self, screen, colour):
        self.screen = screen
        self.attrs = {}
        names = {"red": curses.COLOR_RED, "green": curses.COLOR_GREEN,
                 "yellow": curses.COLOR_YELLOW, "blue": curses.COLOR_BLUE,
                 "magenta": curses.COLOR_MAGENTA, "cyan": curses.COLOR_CYAN}
        pairs = {}
        if colour:
            try:
                curses.use_default_colors()
                background = -1
            except curses.error:
                background = curses.COLOR_BLACK
            for number, (name, value) in enumerate(names.items(), 1):
                curses.init_pair(number, value, background)
                pairs[name] = curses.color_pair(number)
        flags = {"bold": curses.A_BOLD, "dim": curses.A_DIM, "reverse": curses.A_REVERSE}
        for style, (fg, attr) in _STYLES.items():
            value = 0
            for word in str(attr or "").split():
                value |= flags[word]
            if fg and fg in pairs:
                value |= pairs[fg]
            self.attrs[style] = value

    def paint(self, canvas):
        self.screen.erase()
        for row, col, text, style in canvas.items:
            if row == canvas.height - 1 and col + len(text) >= canvas.width:
                text = text[:canvas.width - col - 1]  # the last cell cannot be written
            try:
                self.screen.addstr(row, col, text, self.attrs.get(style, 0))
            except curses.error:
                pass
        self.screen.noutrefresh()
        curses.doupdate()


def _screen_loop(screen, view, colour):
    try:
        curses.curs_set(0)
    except curses.error:
        pass
    screen.keypad(True)
    screen.idlok(False)  # plain redraws, no scrolling regions: simpler terminals keep up
    screen.timeout(50)
    painter = Painter(screen, colour and curses.has_colors())
    while True:
        view.update()
        height, width = screen.getmaxyx()
        canvas = Canvas(width, height)
        view.draw(canvas)
        painter.paint(canvas)
        ch = screen.getch()
        while ch != -1:
            if not view.key(ch):
                return
            ch = screen.getch() if ch != curses.KEY_RESIZE else -1


class _Quit(Exception):
    pass


def _quit(signum, frame):
    signal.signal(signum, signal.SIG_IGN)  # once: the shutdown itself is not cut short
    raise _Quit()


def run(flash=None, micropython=None, seed=None, board=None):
    # The interactive table; returns when the person quits. `board`: another
    # board with the virtual board's face, not started (the emulated Pico's
    # PicoBoard); by default a VirtualBoard on `flash`. The board's
    # meters stay on its flash image for the next run. SIGTERM and SIGHUP
    # end it as q does, so the board's interpreter never outlives it.
    handlers = {signum: signal.signal(signum, _quit) for signum in (signal.SIGTERM,
                                                                     signal.SIGHUP)}
    try:
        return _run(flash, micropython, seed, board)
    except _Quit:
        return 0  # before the screen was up; the board is stopped all the same
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def _run(flash, micropython, seed, board=None):
    locale.setlocale(locale.LC_ALL, "")
    fancy = locale.getpreferredencoding(False).lower().replace("-", "") == "utf8"
    colour = not os.environ.get("NO_COLOR")
    os.environ.setdefault("ESCDELAY", "25")
    faults = io.StringIO()
    if board is None:
        board = VirtualBoard(flash=flash, micropython=micropython, seed=seed, stderr=faults)
    else:
        board.stderr = faults
    board.start(power=False)
    closing = []
    try:
        link = Link(board.serial_path, timeout=COMMAND_TIMEOUT)
        closing.append(link.close)
        board.power(True)  # after the port is open, so "started" is seen
        host = HostLink(link)
        hands_rig, view_rig = TableRig(board.rig_address), TableRig(board.rig_address)
        closing += [hands_rig.close, view_rig.close]
        hands = Hands(hands_rig, host, None)
        view = TableView(board, host, hands, view_rig, seed=seed, fancy=fancy)
        view.note("%s: serial %s, rig %s" % (getattr(board, "title", "virtual board"),
                                               board.serial_path, board.rig_address), "dim")
        view.note("flash %s" % board.flash, "dim")
        if seed is not None:
            view.note("TEST SEED %d: the hit values are predictable; never for play" % seed,
                      "seed")
        host.start()
        hands.start()
        closing.insert(0, host.stop)
        closing.insert(0, hands.stop)
        try:
            curses.wrapper(_screen_loop, view, colour)
        except (KeyboardInterrupt, _Quit):
            pass  # Ctrl-C, a closed terminal or SIGTERM quit as q does
        finally:
            hands.stop()
            hands.join(3.0)
            host.stop()
            host.join(2.0)
        meters = host.meters
    finally:
        for close in closing:
            try:
                close()
            except OSError:
                pass
        board.stop()
    if meters and meters.get("config"):
        summary = "uthctl sim: meter %s (%s, cycle %d, round %d) kept in %s" % (
            money(meters["meter"]), meters["config"], meters["cycle"], meters["round"],
            board.flash)
    else:
        summary = "uthctl sim: flash image %s" % board.flash
    try:
        print(summary + ("\n" + faults.getvalue().rstrip() if faults.getvalue() else ""))
    except OSError:
        pass  # the terminal is gone (SIGHUP)
    return 0

