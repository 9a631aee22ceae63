# What the interactive table shows: the header, the LED meter, the meters,
# the seats, the inputs, the one line that says what to do next, the events
# and the configuration menu, drawn on a Canvas from a TableView's state.
import time

from mystery import configs
from mystery.meter import HIT_AWARD, HIT_SEAT, PENDING_AWARD, PENDING_SEAT, UNCONFIGURED
from mystery.money import dollars as money
from mystery.money import dollars_brief
from table.controller import BETTING, FAULT, HIT_PENDING, LOCKED, NOT_CONFIGURED, SERVICE

from ..analysis import expiry
from ..boards.virtual import SEATS
from ..links.board_link import reset_command
from .board_feed import COMMAND_TIMEOUT
from .events import STATE_NAMES
from .hands import REOPEN_HOLD_S
from .led import led_rows
from .round_entry import PROMPT
from .wrap import wrapped

MIN_WIDTH, MIN_HEIGHT = 80, 24
# A key a seat: its digit for the chip; shifted on a US keyboard, or `u` then
# the digit on any keyboard, for the UTH wager.
SEAT_KEYS = "1234567"[:SEATS]
UTH_KEYS = "!@#$%^&"[:SEATS]
# The keys, in groups each starting a line, packed to the terminal's width.
HELP = (("1-%d chip" % SEATS, "!-%s or u,1-%d UTH" % (UTH_KEYS[-1], SEATS), "0 clear",
         "l LOCK", "L hold LOCK %g s" % REOPEN_HOLD_S, "e round", "q quit"),
        ("k turn key", "s hold key", "c config", "t settings", "T clock", "p pay", "a auto",
         "r reset", "o power"))
# Attached with no rig: only the host link's commands.
HELP_NO_RIG = (("no rig given (--rig ADDRESS): no chips, LOCK, key, reset or power keys",),
               ("c config", "t settings", "T clock", "d redraw", "p payment", "e round",
                "q quit", "(key: service mode)"))
# A failed commit left the cycle's hit value on flash: no round until redrawn.
EXPOSED_HEADLINE = "hit value EXPOSED: hold key (s), then d redraws"

# What to do next at a board attached without a rig: its own key and chips.
NO_RIG_HINTS = {
    NOT_CONFIGURED: "turn the table's key for service mode, then choose a configuration (c)",
    SERVICE: "service mode: c configuration, t settings, d redraws, p sets the payment",
    BETTING: "betting: the table's chips and LOCK play; its events show below",
    LOCKED: "a round is locked: the table's dealer ends it; its events show below",
    HIT_PENDING: "a hit is pending: the table's key validates it (p: how it is paid)",
}


def expired_words(config):
    # The header's mark of a configuration resting on a section past its date,
    # by this computer's date: "  653b.1 EXPIRED 2024-09-04".
    found = expiry.mystery_report(config)
    return "".join("  %s EXPIRED %s" % (section, expires)
                   for section, _, expires in found["sections"]
                   if section in found["expired"])


class Panels:
    # Drawing, for TableView: self.board, .host, .hands, .pins, .fancy, .seed,
    # .events, .message, .menu, .fault and .board_error are its state.
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
        help_lines = key_lines(HELP if self.rig is not None else HELP_NO_RIG, w)
        # Below the seats' rows; a message, while shown, covers the events' rule.
        self._events(canvas, 10 + SEATS, h - 1 - len(help_lines))
        self._hint(canvas, 9 + SEATS)
        for i, line in enumerate(help_lines):
            canvas.put(h - len(help_lines) + i, 0, line, "help")
        if self.menu is not None:
            self._menu(canvas)
        if self.settings is not None:
            text, style, since = self.message
            shown = (text, style) if time.monotonic() - since < 8.0 else None
            self.settings.draw(canvas, self._box, shown)
        if self.entry is not None:
            self._entry(canvas)
        if self.validation is not None:
            self._validation_prompt(canvas)

    def _validation_prompt(self, c):
        # The hit's validation being typed, over the help lines.
        entry = self.validation
        said = entry.error or entry.prompt()
        c.put(c.height - 2, 0, said.ljust(c.width), "error" if entry.error else "head")
        c.put(c.height - 1, 0, ("> " + entry.typed + "_").ljust(c.width), "select")

    def _entry(self, c):
        # The round being typed, over the help lines: Enter sends, Esc cancels.
        c.put(c.height - 2, 0, PROMPT.ljust(c.width), "head")
        c.put(c.height - 1, 0, ("> " + self.entry + "_").ljust(c.width), "select")

    def headline(self):
        # The header's state, its style and what follows it. A stopped
        # controller and a fault stay here, whatever scrolls past below.
        state = self.state()
        if self.host.at_repl:
            return "AT THE REPL", "error", self.board_error or (
                "controller stopped; r resets" if self.rig is not None else
                "controller stopped")
        if self.powered() is False:
            return "OFF", "error", "the board is powered off; o powers it on"
        if state == FAULT or self.fault:
            return "FAULT", "error", self.fault
        text = STATE_NAMES.get(state, state) if state else "starting..."
        style = {HIT_PENDING: "hit", NOT_CONFIGURED: "error", SERVICE: "warn"}.get(state, "on")
        meters = self.host.meters
        if meters and meters.get("exposed"):
            return text, "error", EXPOSED_HEADLINE
        if meters and meters.get("config"):
            return text, style, "%s  cycle %d  round %d%s" % (
                meters["config"], meters["cycle"], meters["round"],
                expired_words(meters["config"]))
        return text, style, self.board_error or ""

    def _title(self, c):
        text, style, detail = self.headline()
        c.put(0, 0, "uthctl sim", "head")  # attached or not: the same table
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
        text = self.display()
        shown = '"%s"' % text if text is not None else "dark"
        title = "LED meter" if self.rig is not None else "LED meter (as status reports it)"
        self._box(c, row, col, 52, 7, title, "display %s" % shown)
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
        lines = [("meter now", money(m["meter"])), ("contributed", money(m["contributed"])),
                 ("seeded", money(m["seeded"])), ("paid", money(m["paid"]))]
        for i, (name, value) in enumerate(lines):
            c.put(row + 1 + i, col, "%-12s %s" % (name, value), "bold" if i == 0 else "normal")
        c.put(row + 5, col, "hits %d  phase %s" % (m["hits"], m["phase"]), "normal")
        if m.get("exposed"):
            c.put(row + 6, col, "EXPOSED: s, then d redraws", "error")
        elif m.get("pending"):
            seat, award = m["pending"][PENDING_SEAT], m["pending"][PENDING_AWARD]
            c.put(row + 6, col, "award    seat %d %s" % (seat, money(award)), "hit")
        elif m.get("last_hits"):
            last = m["last_hits"][-1]
            seat, award = last[HIT_SEAT], last[HIT_AWARD]
            c.put(row + 6, col, "last hit seat %d %s" % (seat, money(award)), "normal")
        elif m.get("commitment"):
            c.put(row + 6, col, "commit %s..." % m["commitment"][:16], "dim")

    def _seats(self, c, row, col):
        on, off, star = ("●", "○", "★") if self.fancy else ("[x]", "[ ]", "<*>")
        if self.rig is None:
            self._seats_from_status(c, row, col, on)
            return
        c.put(row, col, "seat  prog.chip UTH wager  bet light  jackpot", "head")
        pins = self.pins or {}
        inputs = pins.get("inputs", {})
        # A rig that reads fewer seats' lights (the rig Pico's six) shows the rest off.
        bets = pins.get("bet_lights", []) + [0] * SEATS
        jackpots = pins.get("jackpot_lights", []) + [0] * SEATS
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

    def _seats_from_status(self, c, row, col, on):
        # No rig, no lights: what status says of the seats.
        status = self.host.status or {}
        c.put(row, col, "lights: no rig given (--rig ADDRESS)", "warn")
        for n, (name, seats) in enumerate((("in round", status.get("locked_in")),
                                           ("stale chips", status.get("stale_chips")))):
            c.put(row + 2 + n, col, "%-12s %s" % (name, " ".join(map(str, seats or [])) or "-"))
        c.put(row + 5, col, "%s seats from the board's status" % on, "dim")

    def _inputs(self, c, row, col):
        on, off = ("●", "○") if self.fancy else ("[x]", "[ ]")
        if self.rig is None:
            status = self.host.status or {}
            payment = status.get("payment")
            c.put(row, col, "LOCK, key: no rig", "dim")
            c.put(row + 2, col, "payment  %s" % (payment.replace("_", " ") if payment else "?"))
            c.put(row + 5, col, "board    attached", "normal")
            return
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
        if self.attached and "boots" not in pins:
            board = "attached"
        elif self.board.alive() and pins.get("board"):
            board = "running, boots %d" % pins["boots"]
        elif self.board.alive() and pins.get("powered"):
            board = "starting"
        else:
            board = "STOPPED" if not self.board.alive() else "off"
        c.put(row + 5, col, "board    %s" % board, "normal")

    def _hint(self, c, row):
        # The hint, then the latest message below it, each wrapped to the
        # terminal's width: a refusal is read whole, over the events' top lines.
        text, style = self.hint()
        lines = wrapped(text, c.width, 3)
        for i, line in enumerate(lines):
            c.put(row + i, 0, line.ljust(c.width), style)
        text, style, since = self.message
        if text and time.monotonic() - since < 8.0:
            for i, line in enumerate(wrapped("> " + text, c.width, 3)):
                c.put(row + len(lines) + i, 0, line.ljust(c.width), style)

    def hint(self):
        # What to do next: the one line a person reads first.
        if not self.board.alive():
            return ("the %s stopped: %s; q quits" % (getattr(self.board, "title", "board"),
                                                     self.board.failure), "error")
        if self.rig_error:
            return ("rig: %s" % self.rig_error, "error")
        if self.host.failure:
            return ("host link: %s" % self.host.failure, "error")
        if self.powered() is False:
            return ("the board is powered off: o powers it on", "error")
        if self.host.at_repl:
            return ("controller stopped at the REPL: %s(%s)"
                    % ("r resets " if self.rig is not None else "",
                       reset_command(self.board.serial_path)), "error")
        answered = self.host.answered_at
        if answered is not None and time.monotonic() - answered > 2 * COMMAND_TIMEOUT:
            return ("the board's controller has not answered for %d s (is it at the REPL?)"
                    % (time.monotonic() - answered), "error")
        state = self.state()
        status = self.host.status or {}
        meters = self.host.meters or {}
        auto = self.hands.auto
        if state == FAULT:
            return ("FAULT: %s; play is refused until a technician reboots the board"
                    % status.get("fault"), "error")
        if meters.get("exposed"):
            if state == SERVICE:
                return ("service mode: d redraws the exposed hit value (a logged redraw); "
                        "then s", "error")
            return ("hit value exposed: rounds refused until redrawn; hold the key (s), then d",
                    "error")
        if state == SERVICE and (status.get("rules") or {}).get("clock") == "unset":
            then = (", then choose a configuration (c)" if meters.get("phase") == UNCONFIGURED
                    else "")
            return ("service mode: the board's clock is unset (it reads %s): T sets it from "
                    "this computer's clock%s" % (status["rules"].get("date"), then), "warn")
        if self.rig is None and state in NO_RIG_HINTS:
            return (NO_RIG_HINTS[state], "warn" if state in (NOT_CONFIGURED, SERVICE)
                    else "normal")
        if auto is not None:
            return ("auto-play: round %d, the meter climbs until a hit (a stops)"
                    % auto["rounds"], "warn")
        if state == HIT_PENDING and meters.get("pending"):
            return (self._hit_amounts(meters), "hit")
        if state == NOT_CONFIGURED:
            return ("turn on service mode (s) and choose a configuration (c)", "warn")
        if state == SERVICE:
            if meters.get("phase") == UNCONFIGURED:
                return ("service mode: choose a configuration (c), then release the key (s)",
                        "warn")
            return ("service mode: release the key (s) to play", "warn")
        if state == LOCKED:
            return ("round %s locked: take the chips (1-%d, 0 all) or hold LOCK (L) to reopen"
                    % (status.get("round"), SEATS), "normal")
        if state == BETTING:
            return ("place chips (1-%d), press LOCK (l); a auto-plays rounds until a hit"
                    % SEATS,
                    "normal")
        return ("waiting for the board's controller...", "dim")

    def _hit_amounts(self, meters):
        # Three amounts stand at a hit, and differ: say which is which, and why.
        seat, award = meters["pending"][PENDING_SEAT], meters["pending"][PENDING_AWARD]
        hit = self.hit or {}
        value = hit.get("hit_value") if hit.get("award") == award else None
        revealed = money(value) if isinstance(value, int) else "in the events"
        return ("HIT at seat %d: award %s, hit value %s, meter now %s. The award is the meter "
                "as it crossed the hit value; the round's later seats feed the next cycle. "
                "k validates (p: how it is paid)"
                % (seat, money(award), revealed, money(meters["meter"])))

    def _events(self, c, top, bottom):
        rule = "─" if self.fancy else "-"
        c.put(top, 0, rule * 2 + " events " + rule * (c.width - 10), "frame")
        rows = bottom - top
        for i, (line, style) in enumerate(event_rows(self.events, c.width, rows)):
            c.put(top + 1 + i, 0, line, style)

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
            line = "%s %-3s %s chip  %4s%%  meter %s - %s" % (
                ">" if i == index else " ", name,
                dollars_brief(cfg.min_wager_cents * configs.MICROS_PER_CENT), ("%g" % rate),
                dollars_brief(cfg.minimum), dollars_brief(cfg.maximum))
            c.put(row + 1 + i, col + 2, line.ljust(width - 4), "select" if i == index
                  else "normal")
        c.put(row + height - 2, col + 2, "arrows or a name (A1), Enter sends, Esc cancels",
              "dim")


def event_rows(events, width, rows):
    # The newest events that fit in `rows`, oldest first, each wrapped to the
    # width under its time (an EXPIRY warning is read whole); the oldest one
    # shown is cut with "..." when the rows left are too few for it.
    shown = []
    for stamp, text, style in reversed(events):
        if len(shown) >= rows:
            break
        indent = " " * (len(stamp) + 1)
        lines = wrapped(text, max(1, width - len(indent)), rows - len(shown))
        shown[:0] = [((stamp + " " if n == 0 else indent) + line, style)
                     for n, line in enumerate(lines)]
    return shown


def key_lines(groups, width):
    # The footer's keys: each group from a new line, its keys packed two
    # spaces apart onto as few lines of `width` as they fit.
    lines = []
    for group in groups:
        line = ""
        for item in group:
            if line and len(line) + 2 + len(item) > width:
                lines.append(line)
                line = ""
            line = line + "  " + item if line else item
        lines.append(line)
    return lines
