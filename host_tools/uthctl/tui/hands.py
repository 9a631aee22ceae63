# The person's hands on the table: pins through the rig, commands over the
# host link, one action at a time on a thread of their own, and auto-play,
# which plays rounds as a dealer would until a hit.
import json
import queue
import socket
import threading
import time

from table.controller import BETTING, HIT_PENDING, LOCKED, OPEN_HOLD_MS, SETTLE_MS

from ..boards.virtual import SEATS
from ..links.board_link import LinkError
from ..links.rig import PRESS_MS, Rig, RigError, lit
from .events import STATE_NAMES
from .round_entry import settlement_lines

# LOCK held this long reopens betting: the firmware's hold, and a margin.
REOPEN_HOLD_S = OPEN_HOLD_MS / 1000 + 0.5
AUTO_STEP_TIMEOUT = 3.0
# Auto-play presses LOCK again only after the firmware's settle time, and a margin.
AUTO_SETTLE_S = SETTLE_MS / 1000 + 0.015
_QUICKACK = getattr(socket, "TCP_QUICKACK", None)
SLOWEST_CHIP = 0.01  # the slowest emulated chip auto-play stretches its waits for (--throttle's)


def pace_stretch(state):
    # How many wall seconds a second of the board's own time takes: an
    # emulated Pico reports its chip's speed (rig state's chip_speed); every
    # other board keeps the wall clock's pace.
    speed = state.get("chip_speed")
    if not isinstance(speed, (int, float)) or speed <= 0 or speed >= 1:
        return 1.0
    return 1 / max(speed, SLOWEST_CHIP)


class TableRig(Rig):
    # The rig client, quicker: several pins in one go, and no 40 ms stalls
    # between answers (the supervisor writes each answer as it comes; with
    # Nagle on its side and delayed ACKs on ours, the second waits for a
    # timer). TCP_QUICKACK is Linux's; elsewhere answers are just slower.
    def __init__(self, address, timeout=5.0):
        super().__init__(address, timeout)
        if getattr(self, "sock", None) is not None:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _line(self, timeout=None, on_chip=True):
        if _QUICKACK is not None and getattr(self, "sock", None) is not None and \
                b"\n" not in self.buffer:
            self.sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
        return super()._line(timeout, on_chip)

    def set_many(self, levels):
        # Several pins at once: all requests sent, then every answer read
        # (each comes once the board applied its level).
        if getattr(self, "sock", None) is None:  # a rig on another transport: one by one
            for pin, level in levels:
                self.set(pin, level)
            return
        ids = [self.next_id() for _ in levels]
        self.sock.sendall(b"".join(
            json.dumps({"op": "set", "pin": pin, "level": level, "id": request_id}).encode()
            + b"\n" for (pin, level), request_id in zip(levels, ids, strict=True)))
        for request_id in ids:
            reply = self.answer_to(request_id)
            if not reply.get("ok"):
                raise RigError("rig: %s" % reply.get("error", "refused"))


SLOW_CHIP_SAY = "waiting on the board: its chip runs far behind the wall clock"


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
        self._stretch = 1.0  # auto-play's waits, stretched for a slow chip (pace_stretch)

    def tell_slow_waits(self):
        # A key whose answer waits on an emulated chip far behind the wall
        # clock (a Pico at 0.02x took 55 s for a LOCK) says so on the screen,
        # so the table reads as busy, not stuck.
        transport = getattr(self.rig, "transport", None)
        if transport is not None and hasattr(transport, "slow_note"):
            transport.slow_note = lambda _line: self.say(SLOW_CHIP_SAY, "dim")

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
            except Exception as error:  # noqa: BLE001 -- shown on screen; the hands go on
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

    def set_clock(self):
        # The board's calendar clock from this computer's, in service mode:
        # it decides which 653b sections the board says are in force.
        # The outcome is said and kept in the events, read after the message goes.
        reply = self.host.command("clock", set=list(time.localtime()[:6]))
        if reply.get("ok"):
            line = "clock set to %s (was %s)" % (_when(reply.get("datetime")),
                                                  _when(reply.get("was")))
            style = "head"
        else:
            line, style = "the board refused the clock: %s" % reply.get("error"), "error"
        self.host.inbox.append(("note", line))
        self.say(line, style)
        self.host.poll_soon()

    def validate_hit(self, employee, slip):
        # Who validates and the slip, given to the board, then the key turned:
        # the validated record keeps both.
        reply = self.host.command("validation", employee=employee, slip=slip)
        if not reply.get("ok"):
            self.say("the board refused the validation: %s" % reply.get("error"), "error")
            return
        self.turn_key()
        self.say("validated by employee %s, jackpot slip %s: key turned and released"
                 % (employee, slip or "none"), "hit")

    def turn_key(self):
        if self._level("key"):
            self.say("the key is held (service mode): release it with s", "error")
            return
        self.rig.turn_key(PRESS_MS)
        self.say("key turned and released", "normal")

    def toggle_key(self):
        level = 1 - self._level("key")
        self.rig.key(level)
        self.say("key held: %s" % self._key_held_means() if level else "key released", "normal")

    def _key_held_means(self):
        # What the held key does in the state the table is in: a round in
        # play reaches service mode only at its end (the controller's own
        # rule), and a pending hit's key turn validates it first.
        state = (self.host.status or {}).get("state")
        if state == LOCKED:
            return "service mode at the round's end (the round is in play)"
        if state == HIT_PENDING:
            return "validates the pending hit; service mode at the round's end"
        return "service mode"

    def reset_board(self, board):
        # As a technician's power cycle (`mpremote reset` on a board).
        board.reset()
        self.host.resume()
        self.say("board reset (a power cycle): the controller starts again", "head")

    def toggle_power(self, board):
        # Power off is a cut at any instant, as a pulled plug; on boots it.
        on = not self.rig.state().get("powered", True)
        board.power(on)
        if on:
            self.host.resume()
        self.say("board powered %s" % ("on: the controller starts" if on else
                                       "off (o powers it on)"), "head")

    # ---- commands ----

    def configure(self, name):
        reply = self.host.command("config", mystery=name)
        if reply.get("ok"):
            self.say("configuration %s taken; release the key (s) to play" % name, "head")
        else:
            self.say("the board refused %s: %s" % (name, reply.get("error")), "error")

    def change_setting(self, name, value):
        # One setting, in service mode: the board logs it with its old value.
        reply = self.host.command("set", name=name, value=value)
        if reply.get("ok"):
            self.say("%s is %s (was %s), logged" % (name, json.dumps(reply.get("value")),
                                                    json.dumps(reply.get("was"))), "head")
        else:
            self.say("the board refused %s: %s" % (name, reply.get("error")), "error")
        self.host.poll_soon()

    def redraw(self):
        # The recovery from an exposed hit value (README): one logged redraw.
        reply = self.host.command("redraw")
        if reply.get("ok"):
            self.say("cycle %s's hit value redrawn, commitment %s...; release the key (s) to "
                     "play" % (reply.get("cycle"), str(reply.get("commitment"))[:16]), "head")
        else:
            self.say("the board refused the redraw: %s" % reply.get("error"), "error")

    def settle_round(self, data):
        # A round typed at the table (round_entry.py), settled by the board.
        reply = self.host.command("round", **data)
        if not reply.get("ok"):
            self.say("the board refused the round: %s" % reply.get("error"), "error")
            return
        for line in settlement_lines(reply):
            self.host.inbox.append(("note", line))
        self.say("round settled: log record %s (the results are in the events)"
                 % reply.get("seq"), "head")

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
        deadline = time.monotonic() + AUTO_STEP_TIMEOUT * self._stretch
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
        state = self.rig.state()
        inputs = state["inputs"]
        self._stretch = pace_stretch(state)
        seats = [n for n in range(1, SEATS + 1) if inputs.get("bet%d" % n)] or list(
            range(1, SEATS + 1))
        chips = ["bet%d" % n for n in seats]
        if status.get("state") == LOCKED:
            # A round under way ends as a dealer ends it: the chips come off.
            self.rig.set_many([(pin, 0) for pin in chips])
            status = self._await_state((BETTING,), "end the round")
        if status.get("state") != BETTING:
            self.say("auto-play starts from betting (the table is %s)"
                     % STATE_NAMES.get(status.get("state"), status.get("state")), "error")
            return
        # A dealer's round: a UTH wager and a progressive chip at each seat
        # (the UTH chips a rig has lifted are placed again; the rest stay).
        self.rig.set_many([("uth%d" % n, 1) for n in seats if inputs.get("uth%d" % n) == 0])
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
        self.rig.wait_for(lambda s: set(lit(s["bet_lights"])) >= set(seats),
                          AUTO_STEP_TIMEOUT * self._stretch, 0.003,
                          "the bet lights of seats %s" % " ".join(map(str, seats)))
        time.sleep(max(0.0, self._lock_free_at - time.monotonic()))
        self.rig.set("lock", 1)
        status = self._await_state((LOCKED, HIT_PENDING), "lock the round")
        self._lock_free_at = time.monotonic() + AUTO_SETTLE_S * self._stretch
        self.rig.set("lock", 0)
        self.auto["rounds"] += 1
        if status["state"] == HIT_PENDING:
            return True
        self.rig.set_many([(pin, 0) for pin in chips])
        self._await_state((BETTING,), "end the round")
        return False


def _when(fields):
    # A clock's [year, month, day, hour, minute, second, ...] as it reads.
    if not isinstance(fields, list) or len(fields) < 6:
        return "?"
    return "%04d-%02d-%02d %02d:%02d:%02d" % tuple(fields[:6])
