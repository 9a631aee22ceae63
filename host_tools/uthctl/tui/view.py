# The interactive table's view: what it knows of the board (events, status,
# pins) and what each key does; what it draws is panels.py's.
import curses
import re
import time
from collections import deque

from mystery import configs
from table.controller import FAULT, HIT_PENDING, SERVICE

from .events import describe, event_style
from .panels import SEAT_KEYS, SEATS, UTH_KEYS, Panels
from .round_entry import parse_entry
from .settings_menu import SettingsMenu
from .validation_entry import ValidationEntry

# The keys that move the table's pins or its power: a rig's, refused without one.
RIG_KEYS = SEAT_KEYS + UTH_KEYS + "u0lLksaro"
NO_RIG_KEY = ("no rig given: chips, LOCK, the key, auto-play, reset and power need "
              "--rig ADDRESS (c, d, p and q work)")
# A line the board printed that names an error ("OSError: flash image ...").
_ERROR_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception|Interrupt): ")


class TableView(Panels):
    def __init__(self, board, host, hands, rig, seed=None, fancy=True):
        self.board = board
        self.host = host
        self.hands = hands
        self.rig = rig  # the main thread's own rig connection: pin state; None: no rig
        self.attached = getattr(board, "attached", False)  # a board this program did not start
        self.seed = seed
        self.fancy = fancy
        self.pins = None
        self.rig_error = None
        self.events = deque(maxlen=500)  # (time text, line, style)
        self.message = ("", "normal", 0.0)
        self.menu = None  # the configuration being pointed at while choosing
        self.entry = None  # the round being typed (e), until Enter or Esc
        self.settings = None  # the settings screen (t), while open
        self.validation = None  # the hit's validation being typed (k), until sent
        self.uth_prefix = False
        self.hit = None  # the latest hit event: its revealed hit value
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
                if item.get("ev") == "hit":
                    self.hit = item  # its revealed hit value, for the hint
                if item.get("ev") == "refused":
                    # A refusal is also the message, shown whole (wrapped)
                    # where the events pane would cut it; a fault has the header.
                    self.message = (describe(item), "error", time.monotonic())
                if item.get("ev") == "fault":
                    self.fault = item.get("reason") or "no reason given"
                    self._status_at_fault = self.host.status
                elif item.get("ev") == "started":
                    self.board_error = None  # a new boot
            elif kind == "note":
                self.note(item, "head")
            else:
                self.note("board: " + item, "dim")
                if _ERROR_LINE.match(item):
                    self.board_error = item
        status = self.host.status
        if status and status.get("state") == FAULT:
            self.fault = status.get("fault") or self.fault or "no reason given"
        elif status and status is not self._status_at_fault:
            self.fault = None  # a status newer than the fault: the board recovered
        if self.rig is None:
            return
        try:
            self.pins = self.rig.state()
            self.rig_error = None
        except (OSError, ValueError) as error:
            self.rig_error = str(error)

    def state(self):
        status = self.host.status
        return status.get("state") if status else None

    def display(self):
        # The LED meter's text: the rig reads the display's lines; without
        # one, the board's status says what it shows.
        if self.rig is not None:
            return self.pins.get("display") if self.pins else None
        return (self.host.status or {}).get("display")

    def powered(self):
        # False when the rig says the board is off; None when unknown.
        return self.pins.get("powered") if self.pins else None

    # ---- keys ----

    def key(self, ch):
        # False to quit. An open menu, settings screen, round or validation
        # takes every key; else the key's handler in _KEYS (as the
        # controller's _HANDLERS), or a seat's chip or UTH wager.
        char = chr(ch) if 0 <= ch < 0x110000 else ""
        for opened, handler in ((self.menu, self._menu_key), (self.settings, self._settings_key),
                                (self.entry, self._entry_key),
                                (self.validation, self._validation_key)):
            if opened is not None:
                handler(ch, char)
                return True
        if self.uth_prefix:
            self._uth_seat_key(char)
            return True
        if char == "q":
            return False
        if char in RIG_KEYS and char and self.rig is None:
            self.say(NO_RIG_KEY, "error")
        elif char in SEAT_KEYS and char:
            self._pins(self.hands.toggle_chip, int(char))
        elif char in UTH_KEYS and char:
            self._pins(self.hands.toggle_uth, UTH_KEYS.index(char) + 1)
        elif char in _KEYS:
            _KEYS[char](self)
        elif ch != -1 and ch != curses.KEY_RESIZE:
            self.say("keys are on the bottom lines; q quits", "normal")
        return True

    def _uth_seat_key(self, char):
        # The seat after "u": its UTH wager.
        self.uth_prefix = False
        if char in SEAT_KEYS and char:
            self._pins(self.hands.toggle_uth, int(char))
        else:
            self.say("UTH wager: no seat chosen", "normal")

    def _autoplay_key(self):
        if self.hands.autoplaying.is_set():
            self.hands.auto_stop.set()
            self.say("auto-play stops after this round", "normal")
        else:
            self.hands.auto_stop.clear()
            self.hands.autoplaying.set()
            self.hands.do(self.hands.autoplay)

    def _uth_prefix_key(self):
        self.uth_prefix = True
        self.say("UTH wager at which seat (1-%d)?" % SEATS, "head")

    def _key_key(self):
        if self.state() == HIT_PENDING:
            self.validation = ValidationEntry()  # who validates first, then the key
        else:
            self._pins(self.hands.turn_key)

    def _in_service(self, what):
        # True in service mode; else says that `what` waits for it.
        if self.state() == SERVICE:
            return True
        self.say("%s only in service mode: %s first" % (what, self.service_how()), "error")
        return False

    def _config_key(self):
        if self._in_service("configuration changes"):
            names = configs.NAMES
            current = (self.host.meters or {}).get("config")
            self.menu = [names.index(current) if current in names else 0, ""]

    def _settings_open_key(self):
        if self._in_service("settings change"):
            meters = self.host.meters or {}
            self.settings = SettingsMenu(meters.get("settings"), meters.get("config"))

    def _clock_key(self):
        if self._in_service("the clock is set"):
            self.say("setting the board's clock from this computer's...", "normal")
            self.hands.do(self.hands.set_clock)  # its answer follows the line above

    def _redraw_key(self):
        if self._in_service("a redraw"):
            self.hands.do(self.hands.redraw)
            self.say("asking the board to redraw the hit value...", "normal")

    def _entry_open_key(self):
        self.entry = ""

    def service_how(self):
        return "hold the key (s)" if self.rig is not None else "turn the table's key"

    def _pins(self, job, *args):
        if self.hands.autoplaying.is_set():
            self.say("auto-play is playing the table: press a to stop it first", "error")
            return
        self.hands.do(job, *args)

    def _entry_key(self, ch, char):
        # Typing a round's cards: Enter sends it to the board, Esc drops it.
        if ch in (10, 13, curses.KEY_ENTER):
            text, self.entry = self.entry, None
            offered = ((self.host.meters or {}).get("settings") or {}).get("paytables")
            try:
                data = parse_entry(text, offered)
            except ValueError as error:
                self.say("round not sent: %s" % error, "error")
                return
            self.hands.do(self.hands.settle_round, data)
            self.say("sending the round to the board...", "normal")
        elif ch == 27:
            self.entry = None
            self.say("no round sent", "normal")
        elif ch in (curses.KEY_BACKSPACE, 127, 8):
            self.entry = self.entry[:-1]
        elif char and char.isprintable() and len(self.entry) < 200:
            self.entry += char

    def _validation_key(self, ch, char):
        asked = self.validation.key(ch, char)
        if asked == "cancel":
            self.validation = None
            self.say("no validation: the hit stays pending", "normal")
        elif asked is not None:
            self.validation = None
            self._pins(self.hands.validate_hit, *asked[1:])

    def _settings_key(self, ch, char):
        asked = self.settings.key(ch, char)
        if asked == "close":
            self.settings = None
            self.say("settings closed", "normal")
        elif asked is not None:
            _, name, value = asked
            self.settings.in_force[name] = value  # shown at once; the board's reply says
            self.hands.do(self.hands.change_setting, name, value)
            self.say("sending the setting %s..." % name, "normal")

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


# What each key does when nothing is open (TableView.key); the seats' chips
# and UTH wagers are SEAT_KEYS and UTH_KEYS.
_KEYS = {
    "a": TableView._autoplay_key,
    "u": TableView._uth_prefix_key,
    "0": lambda view: view._pins(view.hands.clear_chips),
    "l": lambda view: view._pins(view.hands.press_lock),
    "L": lambda view: view._pins(view.hands.hold_lock),
    "k": TableView._key_key,
    "s": lambda view: view._pins(view.hands.toggle_key),
    "c": TableView._config_key,
    "t": TableView._settings_open_key,
    "T": TableView._clock_key,
    "e": TableView._entry_open_key,
    "p": lambda view: view.hands.do(view.hands.toggle_payment),
    "d": TableView._redraw_key,
    "r": lambda view: view._pins(view.hands.reset_board, view.board),
    "o": lambda view: view._pins(view.hands.toggle_power, view.board),
}
