# `uthctl sim`, the interactive table, driven as a person drives it: the real
# command in a pseudo-terminal, its screen read back with pyte (a VT100
# screen in Python), keys typed into the pty. Select with -k tui.
#
# Expected figures come from 653b.1(c)(4) as typed here (A1: $1 minimum
# wager, 2%, $100-$200), not from the firmware. The hit is made to come in a
# few auto-played rounds by the board's TEST-ONLY seeded random source,
# predicted with the same generator tests/host/test_vboard.py writes out.
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections import deque
from pathlib import Path

import pyte  # a VT100 screen in Python (requirements-dev.txt)
import pytest
from independent_draws import seeded_draws

from mystery.money import dollars
from uthctl.boards.handoff import hand_to_repl
from uthctl.boards.virtual import SEATS, find_micropython
from uthctl.links.board_link import Link
from uthctl.links.rig import Rig
from uthctl.tui.events import describe, event_style
from uthctl.tui.hands import Hands
from uthctl.tui.led import led_rows
from uthctl.tui.screen import Canvas
from uthctl.tui.view import TableView

A1_MINIMUM_CENTS = 100 * 100
A1_MAXIMUM_CENTS = 200 * 100
A1_CENTS_PER_SEAT = 100 * 2 // 100  # a $1 chip at 2%
MICROS_PER_CENT = 10_000
COLS = 80  # the narrowest terminal the table supports
# A played session's rows: room below the table for the events a test waits
# for, a long one (an EXPIRY warning) wrapped over three rows at 80 columns.
SESSION_ROWS = 32
DISPLAY_WAIT = 7.0  # the LED shows the meter 4 s, then "hit bY" 1.5 s and the maximum 2 s


# ---- the TEST-ONLY random source, as boards/sim/board.py has it ----


def first_a1_value(seed):
    # The first A1 hit value (cents) the seeded board draws, computed in
    # independent_draws.py without the firmware's code.
    return seeded_draws(seed, A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS, 1)[0][0]


def require_micropython():
    # `make test` installs MicroPython: without it these tests fail, never skip.
    try:
        find_micropython()
    except OSError as error:
        pytest.fail(str(error), pytrace=False)


def find_seed(low_cents, high_cents):
    for seed in range(1, 200_000):
        if low_cents <= first_a1_value(seed) <= high_cents:
            return seed
    raise AssertionError("no seed found")


def money(cents):
    return "%d.%02d" % divmod(cents, 100)


# ---- a terminal the test reads like a person ----


class Screen(pyte.Screen):
    # pyte's screen plus what ncurses sends an xterm and pyte 0.8 lacks:
    # SU/SD (scroll the region up/down N lines) and REP (repeat the last
    # character N times).
    last = " "

    def draw(self, data):
        if data:
            self.last = data[-1]
        super().draw(data)

    def scroll_up(self, count=1, **_):
        top, bottom = self.margins or (0, self.lines - 1)
        for _ in range(max(1, count)):
            for y in range(top, bottom):
                self.buffer[y] = self.buffer[y + 1]
            self.buffer.pop(bottom, None)
        self.dirty.update(range(self.lines))

    def scroll_down(self, count=1, **_):
        top, bottom = self.margins or (0, self.lines - 1)
        for _ in range(max(1, count)):
            for y in range(bottom, top, -1):
                self.buffer[y] = self.buffer[y - 1]
            self.buffer.pop(top, None)
        self.dirty.update(range(self.lines))

    def repeat_last(self, count=1, **_):
        self.draw(self.last * max(1, count))


class Stream(pyte.ByteStream):
    csi = dict(pyte.ByteStream.csi, S="scroll_up", T="scroll_down", b="repeat_last")


class Terminal:
    def __init__(self, argv, env, cols=COLS, rows=SESSION_ROWS):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     close_fds=True, start_new_session=True)
        os.close(slave)
        self.screen = Screen(cols, rows)
        self.stream = Stream(self.screen)
        self.output = b""

    def pump(self, wait=0.05):
        # Feeds what the program drew; False once the pty is closed.
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        self.output += data
        self.stream.feed(data)
        return bool(data)

    def text(self):
        return "\n".join(self.screen.display)

    def row(self, needle):
        # The first screen row that contains needle.
        return next((line for line in self.screen.display if needle in line), "")

    def wait_for(self, predicate, timeout=10.0, what="the screen"):
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError("timed out after %.1f s waiting for %s; screen:\n%s"
                                     % (timeout, what, text))
            if not self.pump(0.05):
                time.sleep(0.05)

    def wait_text(self, needle, timeout=10.0):
        return self.wait_for(lambda text: needle in text, timeout, repr(needle))

    def keys(self, text):
        os.write(self.master, text.encode())

    def close(self):
        # As a closed terminal would (SIGHUP), then harder; the board's
        # interpreter runs in its own session, so it is looked after too.
        interpreters = children(self.proc.pid) if self.proc.poll() is None else []
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGHUP)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for pid in interpreters:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        os.close(self.master)


def children(pid):
    found = []
    try:
        for task in Path("/proc/%d/task" % pid).iterdir():
            found += [int(n) for n in (task / "children").read_text().split()]
    except OSError:
        pass  # gone meanwhile
    return found


def alive(pid):
    status = Path("/proc/%d/stat" % pid)
    try:
        return status.read_text().split()[2] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def start_sim(tmp_path, *extra):
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
    env.pop("LC_ALL", None)
    env.pop("NO_COLOR", None)
    argv = [sys.executable, "-m", "uthctl.cli", "sim", "--flash", str(tmp_path / "flash.img"),
            *extra]
    return Terminal(argv, env)


def seat_row(term, seat):
    # Seat rows begin with the right-aligned seat number.
    return next((line for line in term.screen.display if re.match(r"\s{2}%d\s" % seat, line)),
                "")


def meter_line(term):
    return term.row("meter now    $")


# ---- the pieces, without a terminal ----


def test_tui_led_rows_use_the_boards_font():
    rows = led_rows("100.04")
    assert len(rows) == 5
    assert "●" in rows[4]  # the decimal point after the third digit
    assert rows[0].count("━━") == 3  # 0, 0, 0 have a top bar; 1 and 4 do not
    assert led_rows("hit bY")  # labels fit the 8 digits
    assert led_rows("SErvICE", fancy=False)[2].count("--") == 4  # S E r ... middle bars
    with pytest.raises(ValueError):
        led_rows("12345678.90")  # a digit would be lost: the board refuses it too


def test_tui_describes_events_compactly():
    assert describe({"ev": "locked", "round": 3, "meter": 100_060_000}) == \
        "locked round 3, meter $100.06"
    assert describe({"ev": "contribution", "round": 3, "seat": 2, "wager": 100,
                     "amount": 20_000}) == "contribution seat 2 $0.02"
    assert describe({"ev": "hit", "seat": 4, "award": 187_340_000, "round": 9,
                     "hit_value": 187_330_000}) == \
        "HIT seat 4: award $187.34, hit value $187.33 revealed (round 9)"
    assert describe({"ev": "paid", "seat": 4, "award": 1_000_000,
                     "payment": "jackpot_slip"}) == "paid seat 4 $1.00 by jackpot slip"
    assert describe({"ev": "door", "state": "open", "seq": 5}) == \
        "DOOR OPEN: LOCK refused until it is closed"
    assert describe({"ev": "door", "state": "closed", "seq": 6}) == "door closed"
    assert event_style({"ev": "door", "state": "open"}) == "error"
    assert describe({"ev": "something"}) == '{"ev":"something"}'


def test_tui_canvas_clips_to_the_screen():
    canvas = Canvas(10, 2)
    canvas.put(0, 6, "overflowing")
    canvas.put(5, 0, "off screen")
    assert canvas.text() == "      over\n"


class _Fake:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def _view(status, meters, pins, at_repl=None):
    board = _Fake(alive=lambda: True, failure=None, serial_path="/dev/pts/99")
    host = _Fake(status=status, meters=meters, inbox=deque(), failure=None, answered_at=None,
                 at_repl=at_repl)
    hands = _Fake(auto=None, autoplaying=threading.Event(), do=lambda *a: None)
    return TableView(board, host, hands, _Fake(state=lambda: pins))


def test_tui_draws_a_pending_hit_at_80x24():
    pins = {"display": "187.34", "inputs": dict({"bet%d" % n: 1 for n in (2, 4)}, lock=0,
                                                key=0, uth2=1, uth4=0),
            "bet_lights": [0, 1, 0, 1, 0, 0, 0], "jackpot_lights": [0, 0, 0, 1, 0, 0, 0],
            "board": True, "powered": True, "boots": 1}
    status = {"state": "hit_pending", "payment": "jackpot_slip", "locked_in": [2, 4]}
    meters = {"meter": 187_340_000, "contributed": 87_340_000, "seeded": 100_000_000,
              "paid": 0, "hits": 0, "phase": "pending", "config": "B1", "cycle": 1,
              "round": 230, "pending": [4, 187_340_000, 1, 230], "last_hits": []}
    view = _view(status, meters, pins)
    view.update()
    canvas = Canvas(80, 24)
    view.draw(canvas)
    text = canvas.text()
    lines = text.split("\n")
    assert lines[0].startswith("uthctl sim  state HIT PENDING  B1  cycle 1  round 230")
    assert 'display "187.34"' in text
    assert "HIT at seat 4: award $187.34" in text and "award    seat 4 $187.34" in text
    seat4 = next(line for line in lines if line.startswith("  4 "))
    assert "● chip" in seat4 and "○ none" in seat4 and "● ON" in seat4 and "JACKPOT" in seat4
    assert "payment  jackpot slip" in text and "in round 2 4" in text
    assert "q quit" in text and all(len(line) <= 80 for line in lines)

    small = Canvas(60, 20)
    view.draw(small)
    assert "at least 80x24" in small.text()


def test_tui_labels_the_three_amounts_at_a_hit_and_says_why_they_differ():
    # The round that crossed A1's hit value of $178.80: seat 1's $0.02 took the
    # meter from $178.80 to $178.82, the award; seats 2 and 3, later in the same
    # round, at $0.02 each then put the meter at $178.86, the next cycle's
    # money. Three amounts, none of them the same.
    status = {"state": "hit_pending", "payment": "table_inventory", "locked_in": [1, 2, 3]}
    meters = {"meter": 178_860_000, "contributed": 78_860_000, "seeded": 100_000_000,
              "paid": 0, "hits": 0, "phase": "pending", "config": "A1", "cycle": 1,
              "round": 120, "pending": [1, 178_820_000, 1, 120], "last_hits": []}
    view = _view(status, meters, {"display": "178.82", "inputs": {}, "board": True,
                                  "powered": True, "boots": 1})
    view.host.inbox.append(("event", {"ev": "hit", "seat": 1, "award": 178_820_000,
                                      "cycle": 1, "round": 120, "hit_value": 178_800_000}))
    view.update()
    canvas = Canvas(80, 24)
    view.draw(canvas)
    text = canvas.text()
    flat = " ".join(line.strip() for line in text.split("\n"))
    assert "award $178.82, hit value $178.80, meter now $178.86." in flat
    assert ("The award is the meter as it crossed the hit value; the round's later seats "
            "feed the next cycle.") in flat
    assert "meter now    $178.86" in text and "award    seat 1 $178.82" in text
    assert view.events[-1][1] == \
        "HIT seat 1: award $178.82, hit value $178.80 revealed (round 120)"
    assert all(len(line) <= 80 for line in text.split("\n"))


def test_tui_refuses_without_a_terminal():
    done = subprocess.run([sys.executable, "-m", "uthctl.cli", "sim"], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=30)
    assert done.returncode == 2 and "--headless" in done.stderr


# ---- the whole table, as a person plays it ----


@pytest.mark.board
def test_tui_bet_lock_autoplay_hit_validate_quit(tmp_path):
    require_micropython()
    manual = (1, 2, 3)  # one round by hand, then auto-play at every seat the board wires
    after_manual = A1_MINIMUM_CENTS + A1_CENTS_PER_SEAT * len(manual)
    # A hit value 2-4 auto-played rounds in: the meter passes it by then.
    per_round = SEATS * A1_CENTS_PER_SEAT
    seed = find_seed(after_manual + per_round * 2, after_manual + per_round * 4 - 1)
    value = first_a1_value(seed)
    k = (value - A1_MINIMUM_CENTS) // A1_CENTS_PER_SEAT + 1  # contributions to the hit
    award_cents = A1_MINIMUM_CENTS + k * A1_CENTS_PER_SEAT
    auto_index = k - len(manual) - 1  # 0-based seat-round within auto-play
    hit_seat = auto_index % SEATS + 1
    carried_cents = (SEATS - 1 - auto_index % SEATS) * A1_CENTS_PER_SEAT  # later seats

    term = start_sim(tmp_path, "--test-seed", str(seed))
    try:
        # A fresh flash: unconfigured, with the hint; the seed labelled.
        term.wait_text("turn on service mode (s) and choose a configuration (c)", 20.0)
        term.wait_text('display "no CFG"')
        assert "TEST SEED %d" % seed in term.row("uthctl sim")
        assert "state UNCONFIGURED" in term.text()

        # Configure: key held, A1 chosen from the menu, key released.
        term.keys("s")
        term.wait_text('display "SErvICE"')
        term.wait_text("state SERVICE")
        term.keys("c")
        term.wait_text("choose a configuration")
        term.keys("A1\r")
        term.wait_text("config A1 (was none)")
        term.keys("s")
        term.wait_text("state BETTING")
        term.wait_for(lambda t: "$%s" % money(A1_MINIMUM_CENTS) in meter_line(term),
                      what="the meter at $100.00")

        # Three chips, their bet lights, LOCK: the meter climbs 2 cents a seat.
        term.keys("".join(str(n) for n in manual))
        term.wait_for(lambda t: all("● ON" in seat_row(term, n) for n in manual),
                      what="bet lights 1-3")
        term.wait_for(lambda t: "○ off" in seat_row(term, 4) and "● chip" in seat_row(term, 1),
                      what="seat 4 empty, seat 1 with a chip")
        term.keys("l")
        term.wait_text("locked round 1, meter $%s" % money(after_manual))
        term.wait_text("contribution seat 3 $0.02")
        term.wait_text("state LOCKED")
        term.wait_for(lambda t: "$%s" % money(after_manual) in meter_line(term),
                      what="the meters read over the host link")
        term.wait_text('display "%s"' % money(after_manual), DISPLAY_WAIT)
        term.keys("0")  # the chips go: betting again
        term.wait_text("state BETTING")
        term.wait_for(lambda t: all("○ off" in seat_row(term, n) for n in manual),
                      what="bet lights off")

        # Auto-play to the hit: the jackpot light at the winning seat, the award shown.
        term.keys("a")
        term.wait_text("state HIT PENDING", 20.0)
        term.wait_text("HIT seat %d: award $%s, hit value $%s revealed"
                       % (hit_seat, money(award_cents), money(value)))
        term.wait_text("HIT at seat %d: award $%s, hit value $%s, meter now $"
                       % (hit_seat, money(award_cents), money(value)))
        term.wait_text('display "%s"' % money(award_cents))
        term.wait_for(lambda t: [n for n in range(1, SEATS + 1)
                                 if "JACKPOT" in seat_row(term, n)]
                      == [hit_seat], what="the jackpot light at seat %d alone" % hit_seat)

        # The key validates: light off, paid, the meter reset with the carry.
        children_before = children(term.proc.pid)
        assert children_before, "no board interpreter under uthctl sim"
        term.keys("k")  # asks who validates, and the slip, before the key turns
        term.wait_text("the floorperson's employee number")
        term.keys("\r")
        term.wait_text("the employee number is needed")
        term.keys("4417\r")
        term.wait_text("the jackpot slip's number")
        term.keys("JS-00912\r")
        term.wait_text("validated seat %d $%s by employee 4417, slip JS-00912"
                       % (hit_seat, money(award_cents)))
        term.wait_text("paid seat %d $%s by table inventory" % (hit_seat, money(award_cents)))
        new_meter = A1_MINIMUM_CENTS + carried_cents
        term.wait_text("reset: cycle 2, A1, meter %s" % dollars(new_meter * MICROS_PER_CENT))
        term.wait_for(lambda t: "JACKPOT" not in t, what="the jackpot light off")
        term.wait_for(lambda t: "$%s" % money(new_meter) in meter_line(term),
                      what="the reset meter")
        term.wait_text("last hit seat %d $%s" % (hit_seat, money(award_cents)))
        term.keys("0")
        term.wait_text("state BETTING")
        term.wait_text('display "%s"' % money(new_meter), DISPLAY_WAIT)

        # q: the program ends and takes the board's interpreter with it.
        term.keys("q")
        deadline = time.monotonic() + 10
        while term.proc.poll() is None and time.monotonic() < deadline:
            term.pump(0.1)
        assert term.proc.poll() == 0
        while term.pump(0.05):
            pass
        assert b"kept in" in term.output
        assert not any(alive(pid) for pid in children_before)
    finally:
        term.close()


@pytest.mark.board
def test_tui_hangup_stops_the_board(tmp_path):
    # A closed terminal (SIGHUP) or SIGTERM ends the table as q does: the
    # board's interpreter must not outlive it, holding the flash image.
    require_micropython()
    for signum in (signal.SIGHUP, signal.SIGTERM):
        term = start_sim(tmp_path)
        try:
            term.wait_text("board started (unconfigured)", 20.0)
            interpreters = children(term.proc.pid)
            assert interpreters
            term.proc.send_signal(signum)
            deadline = time.monotonic() + 10
            while term.proc.poll() is None and time.monotonic() < deadline:
                term.pump(0.1)
            assert term.proc.poll() == 0
            assert not any(alive(pid) for pid in interpreters)
        finally:
            term.close()


# ---- a fault, and a controller stopped at the REPL, stay in the header ----

FAULT = ("store: no readable meter record (meter copy meter.a is unreadable; meter copy "
         "meter.b is unreadable)")


def _header(view, width=80):
    canvas = Canvas(width, 24)
    view.draw(canvas)
    lines = canvas.text().split("\n")
    return lines[0], lines


def test_tui_header_keeps_a_fault():
    pins = {"display": "FAULt", "inputs": {}, "bet_lights": [0] * 6,
            "jackpot_lights": [0] * 6, "board": True, "powered": True, "boots": 1}
    view = _view({"state": "fault", "fault": FAULT}, None, pins)
    view.update()
    header, _ = _header(view)
    assert header.startswith("uthctl sim  state FAULT  store: no readable meter record")
    # A fault event with no status yet (or none to come): the header says it too,
    # however many lines the events pane has scrolled since.
    view = _view(None, None, pins)
    view.host.inbox.append(("event", {"ev": "fault", "reason": FAULT}))
    view.update()
    for n in range(40):
        view.host.inbox.append(("line", "line %d" % n))
    view.update()
    header, lines = _header(view, 200)
    assert header.startswith("uthctl sim  state FAULT  " + FAULT)
    assert not any(FAULT in line for line in lines[17:])  # scrolled out of the events
    # A fault event after the last status (still "betting"): FAULT until a newer
    # status says otherwise.
    view = _view({"state": "betting"}, None, pins)
    view.host.inbox.append(("event", {"ev": "fault", "reason": FAULT}))
    view.update()
    assert _header(view)[0].startswith("uthctl sim  state FAULT  store: no readable")
    view.host.status = {"state": "betting"}  # the next poll's reply
    view.update()
    assert _header(view)[0].startswith("uthctl sim  state BETTING")


def test_tui_shows_an_exposed_hit_value_and_redraws_it_in_service_mode():
    # docs/host-link.md: `meters` says "exposed": true, the board refuses
    # every round, and the recovery is {"cmd": "redraw"} in service mode.
    pins = {"display": "100.04", "inputs": {"key": 0}, "bet_lights": [0] * 6,
            "jackpot_lights": [0] * 6, "board": True, "powered": True, "boots": 2}
    meters = {"meter": 100_040_000, "contributed": 40_000, "seeded": 100_000_000, "paid": 0,
              "hits": 0, "phase": "running", "config": "A1", "cycle": 1, "round": 3,
              "pending": None, "last_hits": [], "commitment": "07ad" * 16, "exposed": True}
    view = _view({"state": "betting"}, meters, pins)
    jobs = []
    view.hands.do = lambda job, *args: jobs.append(job)
    view.hands.redraw = "the redraw job"
    view.update()
    header, lines = _header(view)
    assert header.startswith("uthctl sim  state BETTING  hit value EXPOSED: hold key (s), "
                             "then d redraws"), header
    assert any("EXPOSED: s, then d redraws" in line[54:] for line in lines[1:8]), lines
    hint = lines[9 + SEATS]  # the row below the seats
    assert "rounds refused until redrawn" in hint and "hold the key (s), then d" in hint, hint
    assert all(len(line) <= 80 for line in lines)
    # Outside service mode d only says what to do first.
    view.key(ord("d"))
    view.update()
    assert jobs == [] and "only in service mode" in view.message[0]

    view.host.status = {"state": "service"}
    view.update()
    header, lines = _header(view)
    assert header.startswith("uthctl sim  state SERVICE  hit value EXPOSED"), header
    hint = lines[9 + SEATS]
    assert hint.startswith("service mode: d redraws the exposed hit value"), hint
    view.key(ord("d"))
    assert jobs == ["the redraw job"]

    # Redrawn: the next meters say so, and the screen is back to normal.
    view.host.meters = dict(meters, exposed=False)
    view.update()
    header, lines = _header(view)
    assert "EXPOSED" not in "\n".join(lines), lines
    assert header.startswith("uthctl sim  state SERVICE  A1  cycle 1  round 3"), header


def test_tui_redraw_job_sends_the_redraw_command():
    sent = []

    def command(cmd, **fields):
        sent.append(cmd)
        return {"ok": True, "reply": "redraw", "cycle": 3, "commitment": "07ad" * 16}

    said = []
    hands = Hands(None, _Fake(command=command), lambda text, style: said.append(text))
    hands.redraw()
    assert sent == ["redraw"]
    assert said == ["cycle 3's hit value redrawn, commitment 07ad07ad07ad07ad...; release "
                    "the key (s) to play"]


def test_tui_header_and_hint_for_a_board_at_the_repl():
    pins = {"display": "no CFG", "inputs": {}, "bet_lights": [0] * 6,
            "jackpot_lights": [0] * 6, "board": True, "powered": True, "boots": 1}
    view = _view({"state": "betting"}, None, pins, at_repl="its >>> prompt")
    view.host.inbox.append(("line", "KeyboardInterrupt: "))
    view.update()
    header, lines = _header(view)
    assert header.startswith("uthctl sim  state AT THE REPL  KeyboardInterrupt:")
    hint = next(line for line in lines if "stopped at the REPL" in line)
    assert hint.startswith("controller stopped at the REPL: r resets (mpremote connect "
                           "/dev/pts/99 reset)")


def _corrupt_meter_copies(flash):
    # Both copies of the meter record overwritten through the board's own
    # REPL, as a technician with the key and mpremote could: the store then has no
    # readable meter record, a fault the controller reports at boot.
    from uthctl.boards.virtual import VirtualBoard

    mpremote = Path(sys.executable).parent / "mpremote"
    with VirtualBoard(flash=flash) as vb:
        with Link(vb.serial_path) as link:
            link.wait_ready(20.0)
        hand_to_repl(vb.serial_path, vb.rig_address)  # the technician's way: key, `repl`
        code = ("for name in ('meter.a', 'meter.b'):\n"
                " with open('/meter/' + name, 'w') as f:\n"
                "  f.write('junk')\n")
        done = subprocess.run([str(mpremote), "connect", vb.serial_path, "resume", "exec",
                               code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


@pytest.mark.board
def test_tui_header_shows_the_boards_store_fault(tmp_path):
    require_micropython()
    _corrupt_meter_copies(tmp_path / "flash.img")
    term = start_sim(tmp_path)
    try:
        term.wait_for(lambda t: "state FAULT  store: no readable meter record"
                      in term.row("uthctl sim"), 20.0, "the fault in the header")
        term.wait_text('display "FAULt"')
        # Still there once the events have moved on.
        term.keys("1234")
        term.wait_text("seat 4: chip placed")
        assert "state FAULT  store: no readable meter record" in term.row("uthctl sim")
    finally:
        term.close()


@pytest.mark.board
def test_tui_reset_key_brings_back_a_controller_stopped_at_the_repl(tmp_path):
    require_micropython()
    term = start_sim(tmp_path)
    try:
        text = term.wait_text("board started (unconfigured)", 20.0)
        found = re.search(r"virtual board: serial (\S+), rig (\S+)", text)
        serial, rig_address = found.group(1), found.group(2).rstrip(",;")
        # A technician's way to the REPL, beside the table's own link: the
        # key held, `repl` written to the board's port; the controller stops.
        with Rig(rig_address) as rig:
            rig.key(True)
            term.wait_for(lambda t: "state SERVICE" in term.row("uthctl sim"), 15.0,
                          "service mode in the header")
            port = os.open(serial, os.O_WRONLY | os.O_NOCTTY)
            try:
                os.write(port, b'{"cmd": "repl"}\r\n')
            finally:
                os.close(port)
            term.wait_for(lambda t: "state AT THE REPL" in term.row("uthctl sim"), 15.0,
                          "the REPL in the header")
            rig.key(False)
        term.wait_for(lambda t: "state AT THE REPL" in term.row("uthctl sim"), 15.0,
                      "the REPL in the header")
        term.wait_text("controller stopped at the REPL: r resets")
        term.keys("r")
        term.wait_text("board reset (a power cycle)", 20.0)
        term.wait_for(lambda t: "state UNCONFIGURED" in term.row("uthctl sim"), 20.0,
                      "the controller back")
        term.wait_text('display "no CFG"')
    finally:
        term.close()


def test_a_refusal_is_shown_whole_at_80_columns():
    # A refusal the board sends is read whole, wrapped under the hint, not cut
    # at the screen's edge.
    pins = {"display": "100.00", "inputs": {}, "bet_lights": [0] * 7,
            "jackpot_lights": [0] * 7, "board": True, "powered": True, "boots": 1}
    meters = {"meter": 100_000_000, "contributed": 0, "seeded": 100_000_000, "paid": 0,
              "hits": 0, "phase": "running", "config": "A1", "cycle": 1, "round": 0,
              "pending": None, "last_hits": []}
    view = _view({"state": "betting"}, meters, pins)
    reason = ("key turn waits: LOCK was pressed in the same instant and locked the round; "
              "service mode begins when the round ends, if the key is still held, or turn "
              "the key again then")
    view.host.inbox.append(("event", {"ev": "refused", "reason": reason}))
    view.update()
    canvas = Canvas(80, 24)
    view.draw(canvas)
    shown = " ".join(line.strip() for line in canvas.text().split("\n"))
    assert reason in shown, canvas.text()
    assert max(len(line) for line in canvas.text().split("\n")) <= 80


def test_an_unset_clock_is_offered_to_be_set_in_service_mode():
    # A board whose clock reads before any 653b section (an RP2040 at power-on)
    # cannot say which sections are in force: service mode offers T, which sends
    # this computer's time; outside service mode T says what is needed first.
    pins = {"display": "SErvICE", "inputs": {}, "bet_lights": [0] * 7,
            "jackpot_lights": [0] * 7, "board": True, "powered": True, "boots": 1}
    meters = {"meter": 100_000_000, "contributed": 0, "seeded": 100_000_000, "paid": 0,
              "hits": 0, "phase": "running", "config": "A1", "cycle": 1, "round": 0,
              "pending": None, "last_hits": []}
    status = {"state": "service", "rules": {"clock": "unset", "date": "2021-01-01"}}
    view = _view(status, meters, pins)
    jobs = []
    view.hands.do = lambda job, *args: jobs.append(job.__name__)
    view.hands.set_clock = lambda: None
    view.update()
    assert view.hint() == ("service mode: the board's clock is unset (it reads 2021-01-01): "
                           "T sets it from this computer's clock", "warn")
    view.key(ord("T"))
    assert jobs == ["<lambda>"]
    view.host.status = {"state": "betting", "rules": {"clock": "unset"}}
    view.key(ord("T"))
    view.update()
    assert jobs == ["<lambda>"] and "only in service mode" in view.message[0]


class _KeyRig:
    # A rig whose key switch is let go, and which keeps the levels it is given.
    def __init__(self):
        self.levels = []

    def state(self):
        return {"inputs": {"key": 0}}

    def key(self, level):
        self.levels.append(level)


@pytest.mark.parametrize("state, says", [
    ("locked", "key held: service mode at the round's end (the round is in play)"),
    ("betting", "key held: service mode"),
])
def test_the_key_held_says_when_service_mode_begins(state, says):
    # A round in play ends before service mode begins (the controller's
    # locked state waits for the round's end): the line says so, not that
    # the table is in service mode while its header reads LOCKED.
    said = []
    rig = _KeyRig()
    hands = Hands(rig, _Fake(status={"state": state}), lambda text, style: said.append(text))
    hands.toggle_key()
    assert rig.levels == [1]
    assert said == [says]


def test_a_long_event_is_wrapped_under_its_time_and_the_newest_shown():
    # An event longer than the terminal (an EXPIRY warning) is read whole on
    # the rows below its time; the newest event is on the pane's last row.
    pins = {"display": "100.00", "inputs": {}, "bet_lights": [0] * 7,
            "jackpot_lights": [0] * 7, "board": True, "powered": True, "boots": 1}
    meters = {"meter": 100_000_000, "contributed": 0, "seeded": 100_000_000, "paid": 0,
              "hits": 0, "phase": "running", "config": "A1", "cycle": 1, "round": 0,
              "pending": None, "last_hits": []}
    view = _view({"state": "betting"}, meters, pins)
    for n in range(30):
        view.note("locked round %d" % n)
    reason = ("653b.12 lapses on 2027-01-01: play on only if the regulator has extended or "
              "replaced it, and ask the regulator for the section that replaces it before "
              "that day")
    view.note("EXPIRY: " + reason, "warn")
    view.note("locked round 31")
    canvas = Canvas(80, 30)
    view.draw(canvas)
    lines = canvas.text().split("\n")
    assert max(len(line) for line in lines) <= 80
    assert reason in " ".join(line.strip() for line in lines), canvas.text()
    footer = next(i for i, line in enumerate(lines) if line.startswith("1-7 chip"))
    assert lines[footer - 1].rstrip().endswith("locked round 31"), canvas.text()


def test_an_unset_clock_is_offered_on_the_first_service_screen_and_in_the_keys():
    # A board new from the box: service mode, no configuration yet, its clock
    # unset. T is offered before the configuration is chosen (the sections in
    # force depend on the date), and the footer lists it at 80 columns.
    pins = {"display": "SErvICE", "inputs": {}, "bet_lights": [0] * 7,
            "jackpot_lights": [0] * 7, "board": True, "powered": True, "boots": 1}
    meters = {"meter": 0, "contributed": 0, "seeded": 0, "paid": 0, "hits": 0,
              "phase": "unconfigured", "config": None, "cycle": 0, "round": 0,
              "pending": None, "last_hits": []}
    status = {"state": "service", "rules": {"clock": "unset", "date": "2021-01-01"}}
    view = _view(status, meters, pins)
    view.update()
    text, style = view.hint()
    assert "T sets it from this computer's clock" in text and "configuration (c)" in text
    canvas = Canvas(80, 24)
    view.draw(canvas)
    assert "T clock" in canvas.text(), canvas.text()
    assert max(len(line) for line in canvas.text().split("\n")) <= 80


@pytest.mark.parametrize("reply, says", [
    ({"ok": True, "reply": "clock", "was": [2021, 1, 1, 0, 3, 9, 4, 0],
      "datetime": [2026, 12, 3, 18, 5, 0, 3, 0], "date": "2026-12-03", "clock": "set"},
     "clock set to 2026-12-03 18:05:00 (was 2021-01-01 00:03:09)"),
    ({"ok": False, "error": "the clock is set only in service mode: hold the key switch"},
     "the board refused the clock: the clock is set only in service mode: hold the key "
     "switch"),
])
def test_setting_the_clock_says_what_it_was_set_to(reply, says):
    # The answer is the message and stays in the events after the message goes.
    sent, said, inbox = [], [], deque()
    host = _Fake(command=lambda cmd, **fields: sent.append((cmd, fields)) or reply,
                 inbox=inbox, poll_soon=lambda: None)
    hands = Hands(None, host, lambda text, style: said.append(text))
    hands.set_clock()
    assert sent[0][0] == "clock" and len(sent[0][1]["set"]) == 6
    assert said == [says]
    assert list(inbox) == [("note", says)]
