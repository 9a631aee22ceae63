# The interactive table's settings screen (t, service mode): the table's
# settings (the firmware's mystery/settings.py) with their values in force;
# arrows choose one, Enter types its new value (JSON or a word, as `uthctl set`
# takes it), Enter again sends it, Esc steps back. A value is checked here as
# the board will check it, so a refusal shows before anything is sent.
import curses
import json

from mystery import configs, settings
from mystery.refusal import Refused

from ..analysis.meters_text import parse_value
from .wrap import wrapped

ENTER = (10, 13, curses.KEY_ENTER)
BACKSPACE = (curses.KEY_BACKSPACE, 127, 8)
ESC = 27
_MORE_LINES = 2  # a refusal's lines past its first, inside the box
_WIDEST = 100  # the box's columns at most, on a wide terminal
EXAMPLES = {  # what to type, for the settings whose values are objects
    "paytables": '{"trips": "E", "bad_beat": "C", "play_the_board": "A", '
                 '"ultimate_pairs": "F"}',
    "max_payout_cents": '50000, {"trips": 50000}, or null',
}


class SettingsMenu:
    def __init__(self, in_force, config_name):
        self.in_force = dict(in_force or {})
        self.names = list(settings.NAMES)
        self.config = configs.get(config_name) if config_name else None
        self.index = 0
        self.typed = None  # the new value being typed, until Enter or Esc
        # The value in force stands in the field selected, as a form's does:
        # the first key typed replaces it, Backspace clears it, Enter keeps it.
        self.selected = False
        self.error = None

    def chosen(self):
        return self.names[self.index]

    def key(self, ch, char):
        # What the key asks for: None, "close", or ("set", name, value).
        if self.typed is not None:
            return self._typing(ch, char)
        if ch == curses.KEY_UP:
            self.index = (self.index - 1) % len(self.names)
        elif ch == curses.KEY_DOWN:
            self.index = (self.index + 1) % len(self.names)
        elif ch in ENTER:
            self.typed = json.dumps(settings.value(self.in_force, self.chosen()))
            self.selected = True
            self.error = None
        elif ch == ESC or char in ("q", "t"):
            return "close"
        return None

    def _typing(self, ch, char):
        if ch in ENTER:
            name = self.chosen()
            try:
                value = settings.validate(name, parse_value(self.typed), self.config)
            except Refused as error:
                self.error = str(error)
                return None
            self.typed, self.error = None, None
            return ("set", name, value)
        if ch == ESC:
            self.typed, self.error = None, None
        elif ch in BACKSPACE:
            self.typed = "" if self.selected else self.typed[:-1]
        elif char and char.isprintable() and len(self.typed) < 200:
            self.typed = char if self.selected else self.typed + char
        else:
            return None
        self.selected = False
        return None

    # ---- drawing ----

    def draw(self, c, box, message=None):
        # box(c, row, col, width, height, title): the table's frame; message:
        # (text, style), the table's latest (the board's answer), shown inside.
        width = min(c.width - 2, _WIDEST)
        inner = width - 4
        room = max(2, c.height - 2 - (len(self.names) + 5 + _MORE_LINES))
        helps = [self._help(name, inner, room) for name in self.names]
        help_rows = max(len(lines) for lines in helps)
        height = len(self.names) + 5 + _MORE_LINES + help_rows
        row, col = max(1, (c.height - height) // 2), (c.width - width) // 2
        for r in range(row, row + height):
            c.put(r, col, " " * width, "normal")
        box(c, row, col, width, height, "table settings (service mode)")
        for i, name in enumerate(self.names):
            value = json.dumps(settings.value(self.in_force, name))
            line = "%s %-17s %s" % (">" if i == self.index else " ", name, value)
            c.put(row + 1 + i, col + 2, _fit(line, inner),
                  "select" if i == self.index else "normal")
        below = row + 1 + len(self.names)
        for i, line in enumerate(helps[self.index]):
            c.put(below + i, col + 2, line.ljust(inner), "dim")
        below += help_rows - 2  # the typed value and the answer follow the help
        if self.typed is not None:
            shown = ("= [%s]  (typing replaces it)" % self.typed if self.selected
                     else "= " + self.typed + "_")
            c.put(below + 2, col + 2, _fit(shown, inner, tail=True), "select")
        said = (self.error, "error") if self.error else message
        if said and said[0]:
            for i, line in enumerate(wrapped(said[0], inner, 1 + _MORE_LINES)):
                c.put(below + 3 + i, col + 2, line.ljust(inner), said[1])
        hint = ("Enter sends, Esc keeps the value" if self.typed is not None
                else "arrows choose, Enter changes, Esc closes")
        c.put(row + height - 2, col + 2, hint, "dim")

    def _help(self, name, width, most):
        # The setting's description and its example, wrapped to the box, as
        # many lines as the screen has room for.
        lines = wrapped(settings.description(name), width, most)
        example = EXAMPLES.get(name)
        if example and len(lines) < most:
            lines += wrapped("e.g. " + example, width, most - len(lines))
        return lines


def _fit(text, width, tail=False):
    # Text cut to width; the end kept (what is being typed) when tail is set.
    if len(text) <= width:
        return text.ljust(width)
    return ("..." + text[-(width - 3):]) if tail else text[:width - 3] + "..."
