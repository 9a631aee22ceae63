# The power-cut proof on the real image: the project's own image, the
# controller frozen into MicroPython's rp2 port (`make image`), on the
# emulated Pico (boards/pico.py), its flash the rp2 port's own littlefs as
# the image mounts it (nothing of it in Python here). A scripted table day
# is driven through the rig and the host link, one power-on a step, and cut
# at its flash operations:
#
#   day       configuration A1 in service mode; rounds of 1 to 6 seats (the
#             Pico wires six); a round that hits at seat 1 with five later
#             seats; validation paid by jackpot slip and its reset; two more
#             rounds, the second hitting at seat 5 with seat 6 after it;
#             validation from table inventory and its reset; a change to B1
#             in service mode with the meter at that reset
#   record    the day played once uncut, saving the flash image at the start
#             of every step and counting the step's flash operations (rig
#             state's flash_ops, one power-on a step)
#   cut       for each chosen operation and mode ("before": it never happens;
#             "partial": a torn page program or a half-done sector erase):
#             the step's saved image written back while the board is off, the
#             cut armed at the operation's number in that power-on, the step
#             replayed until the cut stops the emulation, then a restart on
#             the saved flash
#   check     every meter at its value just before or just after the step
#             (the recorded `meters`; hit times aside, which follow the
#             clock); seeded + contributed = paid + meter; the board's `log`
#             export verifies (log_verify.verify_log, as `uthctl mystery
#             verify --head` from `meters`) from the genesis hash to the
#             meter's head; no line from the board, before the cut or after
#             the restart, carries a hit value while it was live (the value
#             in micro-dollars or cents, or its salt); a cut that left the
#             live value on flash outside a commit must show `"exposed": true`,
#             refuse LOCK, and a service-mode redraw must reveal the old value,
#             publish a new commitment and let a round lock.
#
# The hit values are foreseen, not read: a TEST-ONLY /boot.py (pico_target)
# gives the controller the seeded stream independent_draws.py computes on its
# own, and the stream starts over at every power-on, so every draw of the day
# is the first of a fresh stream (each reset's commitment is checked against
# it while recording).
#
# UTH_PICO_FULL=1 (make test-pico) cuts every operation of every step in both modes
# (`make test-pico`); otherwise (`make test`) the day is recorded up to the
# first validation and cut at every operation of the round that hits and at
# every fifth of its validation, the modes taking turns. The board runs with
# realtime off (a sleep costs no wall time; the rig's spacing is kept on the
# chip's clock): with it on, a busy chip lags the wall clock and each rig
# level waits longer than the one before.
import contextlib
import hashlib
import json
import os
import re
import time

import pytest
from independent_draws import commitment, seeded_draws
from pico_target import fresh_controller

from mystery import recordkey
from uthctl.analysis import log_verify, logread, record_auth
from uthctl.boards import pico_image
from uthctl.links.board_link import Link
from uthctl.links.rig import Rig, lit

WHY_NOT = pico_image.unavailable()
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason="emulated Pico: %s" % WHY_NOT),
              pytest.mark.board]

if WHY_NOT is None:
    from uthctl.boards.pico import PicoBoard

FULL = os.environ.get("UTH_PICO_FULL") == "1"  # make test-pico
MODES = ("before", "partial")
MICROS_PER_CENT = 10_000
A1 = (10_000, 20_000)  # its hit values' range in cents: $100 to $200
B1 = (10_000, 50_000)  # $100 to $500
A1_CENTS_PER_SEAT = 2  # a $1 chip at 2%
BOOT_WAIT = 60.0
WAIT = 30.0  # any one event or light, on a loaded host at half the chip's speed
QUIET = 1.0  # seconds without a new flash operation that end a recorded step
COMPARED = ("meter", "contributed", "seeded", "paid", "hits", "cycle", "round", "config",
            "phase", "pending", "last_hits", "display_cents", "log_seq", "commitment", "key_id")
# The record key given after the configuration: the day's later records are
# signed, a cut in the provision leaves the old key (none) or the new one in
# force, and no line from the board ever carries it.
KEY = hashlib.sha256(b"the pico power cut's record key").hexdigest()
KEY_ID = recordkey.key_id(bytes.fromhex(KEY))


def first_seed():
    # A seed whose first A1 draw is an odd number of cents (a meter of whole
    # 2-cent contributions never equals it, so a meter in a line is never
    # taken for the value) at which the 16th contribution hits: rounds of
    # 1-5 seats give 15, so the six-seat round hits at seat 1.
    for seed in range(1, 200_000):
        cents = seeded_draws(seed, *A1, 1)[0][0]
        if cents % 2 and cents - A1[0] in (30, 31):
            return seed
    raise AssertionError("no seed found")


SEED = first_seed()
VALUE, SALT = seeded_draws(SEED, *A1, 1)[0]


class Cut(Exception):
    # The armed cut stopped the emulation while the step waited on it.
    pass


# ---- the host link, every line kept ----


class Host:
    wait = WAIT  # any one event or reply; a slower board's host waits longer

    def __init__(self, link, board):
        self.link = link
        self.board = board
        self.lines = []  # every line the board sent, as text
        self.events = []
        self.next_id = 1

    def _powered(self):
        return self.board.state()["powered"]

    def _read(self, timeout):
        line = self.link.read_line(timeout)
        if line is None:
            return None
        text = line.decode("utf-8", "replace")
        self.lines.append(text)
        try:
            message = json.loads(text)
        except ValueError:
            return None
        if not isinstance(message, dict):
            return None
        if "ev" in message:
            self.events.append(message)
        return message

    def until(self, test, what, timeout=None):
        # The first message passing test, reading on; Cut if the board went off.
        timeout = self.wait if timeout is None else timeout
        deadline = time.monotonic() + timeout
        checked = time.monotonic()
        while True:
            message = self._read(0.2)
            if message is not None and test(message):
                return message
            if time.monotonic() - checked > 0.5:
                checked = time.monotonic()
                if not self._powered():
                    raise Cut(what)
            assert time.monotonic() < deadline, "no %s within %.0f s" % (what, timeout)

    def event(self, name):
        for event in self.events:
            if event["ev"] == name and not event.get("_taken"):
                event["_taken"] = True
                return event
        message = self.until(lambda m: m.get("ev") == name, "%r event" % name)
        message["_taken"] = True
        return message

    def command(self, cmd, **fields):
        number, self.next_id = self.next_id, self.next_id + 1
        self.link.write(json.dumps(dict(fields, cmd=cmd, id=number)).encode() + b"\r\n")
        return self.until(lambda m: m.get("id") == number, "the reply to %r" % cmd)

    def ready(self):
        deadline = time.monotonic() + BOOT_WAIT
        while True:
            try:
                return self.command("ping")
            except AssertionError:
                assert time.monotonic() < deadline, "the controller never answered"

    def log(self):
        # The board's whole log export, as `uthctl mystery verify` reads it.
        number, self.next_id = self.next_id, self.next_id + 1
        self.link.write(json.dumps({"cmd": "log", "since": 0, "id": number}).encode() + b"\r\n")
        export = []
        while True:
            message = self.until(lambda m: m.get("reply") == "log" or m.get("id") == number,
                                 "the log export")
            export.append(json.dumps(message))
            if "record" not in message:
                assert message.get("ok"), message
                return logread.read_log(export)


def chips(rig, seats, on):
    # Every seat's chip placed (or lifted) at once: the requests all sent,
    # then their answers read (each comes once the chip ran 10 ms with it).
    for seat in seats:
        rig.sock.sendall(json.dumps({"op": "set", "pin": "bet%d" % seat,
                                     "level": int(on)}).encode() + b"\n")
    for _ in seats:
        assert json.loads(rig._line())["ok"]


def waiting(host, rig, predicate, what):
    # rig.wait_for that stops at a cut.
    def test(state):
        if not state["powered"]:
            raise Cut(what)
        return predicate(state)

    return rig.wait_for(test, host.wait, what=what)


# ---- the day's steps: each one power-on, driven until it is done ----


def service(host, rig):
    rig.key(True)
    deadline = time.monotonic() + host.wait
    while host.command("status").get("state") != "service":
        assert time.monotonic() < deadline, "no service mode"
        if not host._powered():
            raise Cut("service mode")
        time.sleep(0.1)


def configure(name):
    def step(host, rig):
        service(host, rig)
        reply = host.command("config", mystery=name)
        assert reply["ok"], reply
        host.event("reset")
        rig.key(False)
        waiting(host, rig, lambda s: True, "the key released")

    step.name = "configure " + name
    return step


def provision():
    def step(host, rig):
        service(host, rig)
        reply = host.command("provision", key=KEY)
        assert reply["ok"] and reply["key_id"] == KEY_ID, reply
        rig.key(False)
        waiting(host, rig, lambda s: True, "the key released")

    step.name = "the record key given"
    return step


def play(seats, hits=False):
    def step(host, rig):
        chips(rig, seats, True)
        waiting(host, rig, lambda s: lit(s["bet_lights"]) == sorted(seats), "bet lights")
        rig.press_lock()
        host.event("locked")
        if hits:
            host.event("hit")
        chips(rig, seats, False)
        waiting(host, rig, lambda s: lit(s["bet_lights"]) == [] or any(s["jackpot_lights"]),
                "the round's end")

    step.name = "round of %d seats%s" % (len(seats), ", the hit" if hits else "")
    step.hits = hits
    return step


def validate(method):
    def step(host, rig):
        assert host.command("payment", method=method)["ok"]
        rig.turn_key()
        host.event("validated")
        assert host.event("paid")["payment"] == method
        host.event("reset")
        waiting(host, rig, lambda s: not any(s["jackpot_lights"]), "the jackpot light off")

    step.name = "validation by " + method
    step.validates = True
    return step


SIX = (1, 2, 3, 4, 5, 6)
# (step, stride): every third operation of the key's provision, the first
# hit's round and every fifth of its validation.
SUBSET = ((1, 3), (7, 1), (8, 5))
DAY = [configure("A1"), provision(), play((3,)), play((1, 6)), play((2, 4, 5)), play((1, 2, 3, 4)),
       play((2, 3, 4, 5, 6)), play(SIX, hits=True), validate("jackpot_slip"), play(SIX),
       play(SIX, hits=True), validate("table_inventory"), configure("B1")]


# ---- the board ----


class Bench:
    # One supervisor on one flash file, its link and rig; a step's image is
    # written back into the file only while the board is off.
    def __init__(self, flash, stack):
        self.flash = flash
        self.board = stack.enter_context(PicoBoard(flash=flash, realtime=False))
        self.board.power(False)
        self.rig = stack.enter_context(Rig(self.board.rig_address, timeout=WAIT))
        self.rest = self.rig.state()["inputs"]
        self.link = stack.enter_context(Link(self.board.serial_path, timeout=WAIT))

    def power_on(self, cut=None):
        # A host reading this power-on's lines; None when a cut stopped the boot.
        host = Host(self.link, self.board)
        if cut is not None:
            assert self.rig.request(op="cut", at=cut[0], mode=cut[1])["armed"]
        self.board.power(True)
        deadline = time.monotonic() + BOOT_WAIT
        while self.board.wait_started(0.5)["state"] is None:
            if not self.board.state()["powered"]:
                return None
            assert time.monotonic() < deadline, "the board never started"
        host.ready()
        return host

    def ops(self):
        ops = self.board.state()["flash_ops"]
        return ops["erase"] + ops["program"]

    def off(self):
        self.board.power(False)

    def release(self):
        # Every input back to its level at the start, kept for the next
        # power-on (a cut leaves what the step held: the key, chips): nothing
        # pressed, no progressive chip, every UTH chip placed.
        for pin, level in self.rest.items():
            self.rig.set(pin, level)

    def load(self, image):
        assert not self.board.state()["powered"]
        self.flash.write_bytes(image)


def meters(host):
    reply = host.command("meters")
    assert reply["ok"], reply
    return reply["meters"]


def comparable(record, startless=False):
    # A meter record without what follows the clock (each hit's time).
    # startless: without the log's head too, which each power-on's `start`
    # record moves (the_restarts_start_alone checks what lies past the step's head).
    kept = {name: record[name] for name in COMPARED if not (startless and name == "log_seq")}
    kept["last_hits"] = [hit[:-1] for hit in record["last_hits"]]  # [..., payment, time]
    if kept["pending"] is not None:
        kept["pending"] = kept["pending"][:-1]  # [seat, award, cycle, round, time]
    return kept


def the_restarts_start_alone(records, step_head, head):
    # Past the step's head (before it): what the cut power-on committed,
    # then the restart's own `start` record, then only what a boot itself
    # finishes (a validation's reset owed) or service mode's records. The cut
    # is armed past the cut power-on's boot, so its `start` is in the step's
    # head; that the meters are the step's before or after is checked apart.
    past = [record for record in records if step_head < record["seq"] <= head]
    starts = [n for n, record in enumerate(past) if record["ev"] == "start"]
    return (len(past) == head - step_head and len(starts) == 1
            and all(record["ev"] in ("reset", "service") for record in past[starts[0] + 1:]))


def quiet_ops(bench):
    # The power-on's operation count once no new one came for QUIET seconds.
    count, since = bench.ops(), time.monotonic()
    while time.monotonic() - since < QUIET:
        time.sleep(0.1)
        now = bench.ops()
        if now != count:
            count, since = now, time.monotonic()
    return count


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    # The day recorded uncut: per step its starting image, the meters before
    # and after, and the numbers of its flash operations in its power-on.
    folder = tmp_path_factory.mktemp("pico-cut")
    flash = folder / "flash.img"
    with PicoBoard(flash=flash) as board:
        came = fresh_controller(board, folder, seed=SEED)
        assert came == {"state": "unconfigured", "fault": None}
    record = []
    with contextlib.ExitStack() as stack:
        bench = Bench(flash, stack)
        for step in DAY if FULL else DAY[:SUBSET[-1][0] + 1]:
            image = flash.read_bytes()
            host = bench.power_on()
            booted = bench.ops()
            before = meters(host)
            step(host, bench.rig)
            done = quiet_ops(bench)
            after = meters(host)
            bench.off()
            check_draws(host, after)
            record.append({"step": step, "image": image, "booted": booted, "ops": done,
                           "before": before, "after": after})
            assert done > booted, "%s wrote nothing" % step.name
    return {"flash": flash, "steps": record}


def check_draws(host, after):
    # Every reset publishes the commitment of a fresh stream's first draw.
    for event in host.events:
        if event["ev"] == "reset":
            span = B1 if event.get("config") == "B1" else A1
            assert event["commitment"] == commitment(*seeded_draws(SEED, *span, 1)[0]), event


# ---- the checks after a restart ----


def known_secrets(meter_record):
    # (cents, salt) of the value live by this record, or None while a hit is
    # pending (its value already revealed by the committed hit).
    if not meter_record["commitment"] or meter_record["pending"] is not None:
        return None
    candidates = [seeded_draws(SEED, *span, 1)[0] for span in (A1, B1)]
    maximum = (B1 if meter_record["config"] == "B1" else A1)[1]
    meter_cents = meter_record["meter"] // MICROS_PER_CENT
    candidates.append(seeded_draws(SEED, meter_cents, maximum, 1)[0])  # a redraw's
    for cents, salt in candidates:
        if commitment(cents, salt) == meter_record["commitment"]:
            return cents, salt
    raise AssertionError("a commitment no draw explains: %s" % meter_record["commitment"])


def carries(line, secret):
    cents, salt = secret
    pattern = r"(?<![0-9a-f])(%d|%d)(?![0-9a-f])" % (cents, cents * MICROS_PER_CENT)
    return salt in line or re.search(pattern, line) is not None


def revealed(records, secret):
    return any(secret[1] in json.dumps(record) for record in records)


EXPOSED = []  # the cuts whose restart found the live value exposed, redrawn


def check_restart(bench, entry, cut_lines, secret_before):
    host = bench.power_on()
    assert host is not None, "the restart was cut"
    came = bench.board.wait_started(1)
    assert came["fault"] is None, came
    now = meters(host)
    problems = []
    landed = [ref for ref in (entry["after"], entry["before"])
              if comparable(now, startless=True) == comparable(ref, startless=True)]
    if not landed:
        problems.append("meters neither before nor after: %s" % json.dumps(now))
    if now["seeded"] + now["contributed"] != now["paid"] + now["meter"]:
        problems.append("identity broken: %s" % json.dumps(now))
    secrets = [secret_before, known_secrets(now)]  # None where no value is live
    restart_head = now["log_seq"]  # before a redraw's records, if the value was exposed
    if now["exposed"]:
        EXPOSED.append(entry["step"].name)
        problems += recover(host, bench.rig, now, secrets)
        now = meters(host)
    records = host.log()
    # A new board (no record yet) writes no `start` (bonus.record_start).
    if landed and restart_head and not the_restarts_start_alone(
            records, entry["before"]["log_seq"], restart_head):
        problems.append("past the step's head, not one restart's `start` after the step's "
                        "records: %s" % json.dumps(records[-3:]))
    if now["log_seq"] == 0:  # a new board, as before its first configuration
        if records:
            problems.append("log records before any: %s" % json.dumps(records))
    else:
        result = log_verify.verify_log(records, head=(now["log_seq"], now["log_hash"]))
        if not (result["ok"] and result["starts_at"] == "genesis"):
            problems.append("log: %s" % json.dumps(result))
        signed = record_auth.check_records(records, {KEY_ID: bytes.fromhex(KEY)})
        if signed["problems"] or signed["key_id"] != now["key_id"]:
            problems.append("authenticators: %s (the meters name key %s)"
                            % (json.dumps(signed), now["key_id"]))
    if any(KEY in line.lower() for line in cut_lines + host.lines):
        problems.append("the record key out in a line from the board")
    for secret in secrets:
        if secret is None or revealed(records, secret):
            continue
        leaked = [line for line in cut_lines + host.lines if carries(line, secret)]
        if leaked:
            problems.append("live value %d out: %s" % (secret[0], leaked[0]))
    bench.off()
    return problems


def recover(host, rig, exposed, secrets):
    # An exposed value: LOCK refused, a service-mode redraw, then a round locks.
    problems = []
    rig.chip(1, True)
    waiting(host, rig, lambda s: lit(s["bet_lights"]) == [1], "bet light")
    rig.press_lock()
    if "redraw" not in host.event("refused")["reason"]:
        problems.append("LOCK refused without naming the redraw")
    rig.chip(1, False)
    waiting(host, rig, lambda s: lit(s["bet_lights"]) == [], "bet light off")
    service(host, rig)
    reply = host.command("redraw")
    event = host.event("redraw")
    rig.key(False)
    if not reply["ok"] or event["revealed"] != exposed["commitment"]:
        problems.append("redraw: %s %s" % (json.dumps(reply), json.dumps(event)))
    now = meters(host)
    secrets.append(known_secrets(now))
    unmoved = dict(now, commitment=None, log_seq=None)  # a redraw moves neither money nor play
    if now["exposed"] or comparable(unmoved) != comparable(
            dict(exposed, commitment=None, log_seq=None)):
        problems.append("after the redraw: %s" % json.dumps(now))
    time.sleep(0.3)  # the key's release debounced before the chip
    rig.chip(2, True)
    waiting(host, rig, lambda s: lit(s["bet_lights"]) == [2], "bet light")
    rig.press_lock()
    host.event("locked")
    rig.chip(2, False)
    waiting(host, rig, lambda s: lit(s["bet_lights"]) == [], "bet light off")
    return problems


def cut_once(bench, entry, at, mode):
    # One cut: the step's image, the cut armed, the step replayed; the problems found.
    bench.load(entry["image"])
    host = bench.power_on(cut=(entry["booted"] + at, mode))
    assert host is not None, "the boot reached the cut"
    try:
        entry["step"](host, bench.rig)
        quiet_ops(bench)
    except Cut:
        pass
    state = bench.board.state()
    assert not state["powered"] and state["cut"]["at"] == entry["booted"] + at, state
    bench.release()
    return check_restart(bench, entry, host.lines, known_secrets(entry["before"]))


def chosen_cuts(steps):
    # (step index, operation in the step from 1, mode): in full every one in
    # both modes; in the subset every operation of the round that hits and
    # every fifth of its validation, the modes taking turns.
    if FULL:
        return [(index, at, mode) for index, entry in enumerate(steps)
                for at in range(1, entry["ops"] - entry["booted"] + 1) for mode in MODES]
    cuts = []
    for index, stride in SUBSET:
        count = steps[index]["ops"] - steps[index]["booted"]
        cuts += [(index, at, MODES[at % 2]) for at in range(1, count + 1, stride)]
    return cuts


def test_pico_power_cut_at_flash_operations_of_a_table_day(day, capsys):
    steps, started = day["steps"], time.monotonic()
    cuts = chosen_cuts(steps)
    failures = []
    with contextlib.ExitStack() as stack:
        bench = Bench(day["flash"], stack)
        for index, at, mode in cuts:
            entry = steps[index]
            problems = cut_once(bench, entry, at, mode)
            if problems:
                failures.append("%s, operation %d, %s: %s" % (
                    entry["step"].name, at, mode, "; ".join(problems)))
    total = sum(entry["ops"] - entry["booted"] for entry in steps)
    with capsys.disabled():
        print("\npico power cuts (%s): %d flash operations in %d steps, %d cuts (%d before, "
              "%d partial), %d found the value exposed and redrew it, %d failures, %.0f s" % (
                  "full" if FULL else "subset", total, len(steps), len(cuts),
                  sum(mode == "before" for _, _, mode in cuts),
                  sum(mode == "partial" for _, _, mode in cuts), len(EXPOSED), len(failures),
                  time.monotonic() - started))
    assert not failures, "\n".join(failures)
    # The round that hits is cut at every operation: some cut falls after its
    # records landed and before its meter record, and must expose the value.
    assert EXPOSED, "no cut of the round that hits exposed its value"
