# k at a pending hit: the floorperson's employee number, then the jackpot
# slip's (653b.1(c)(5)(ii) has a floorperson validate the hit), typed at the
# table and sent as `validation` before the rig turns the key, so the
# validated record holds both rather than nulls. Each is checked as the board
# will check it, so a refusal shows before anything is sent.
import curses

from mystery.meter import Refused, check_validation_text

ENTER = (10, 13, curses.KEY_ENTER)
BACKSPACE = (curses.KEY_BACKSPACE, 127, 8)
ESC = 27
FIELDS = (("employee", "the floorperson's employee number (Enter: next, Esc: cancel)"),
          ("slip", "the jackpot slip's number (Enter with none: no slip, Esc: cancel)"))


class ValidationEntry:
    def __init__(self):
        self.given = []  # the fields typed so far, in FIELDS' order
        self.typed = ""
        self.error = None

    def prompt(self):
        return FIELDS[len(self.given)][1]

    def key(self, ch, char):
        # None while typing; "cancel"; or ("validate", employee, slip).
        if ch == ESC:
            return "cancel"
        if ch in BACKSPACE:
            self.typed = self.typed[:-1]
        elif ch in ENTER:
            return self._next()
        elif char and char.isprintable() and len(self.typed) < 40:
            self.typed += char
        return None

    def _next(self):
        name = FIELDS[len(self.given)][0]
        value = self.typed or None
        if name == "employee" and value is None:
            self.error = "the employee number is needed: the floorperson validates the hit"
            return None
        try:
            check_validation_text(name, value)
        except Refused as error:
            self.error = str(error)
            return None
        self.given.append(value)
        self.typed, self.error = "", None
        if len(self.given) < len(FIELDS):
            return None
        return ("validate",) + tuple(self.given)
