# Power cuts on the virtual board: the interpreter is SIGKILLed at random
# moments while rounds are played and hits validated, restarted on the same
# flash image, and every meter must be at its value before or after the
# operation in flight, never anything else (design.md, "Nothing is lost").
#
# Two ways to kill, both a SIGKILL of the micropython process, never of the
# supervisor (which runs in this process; the interpreter is its child):
#   power   the rig's {"op": "power", "on": false}: the supervisor SIGKILLs the
#           interpreter and drops the input it had not read, as a power cut
#           does; the test looks at the flash image while the power is off,
#           then powers on
#   sigkill os.kill(pid, SIGKILL) on the interpreter found under /proc; the
#           supervisor restarts it at once on the same image (as after a
#           crash)
# and three kinds of moment: "commit", 0-1.5 ms after the rig's set of the LOCK
# (or key) level returns: the board echoes the rig's sync from the tick that
# then commits, and a commit takes about 0.5-3 ms on the unix port, so these
# land in it or just around it; "press", 0-8 ms after that level is sent; and
# "any", anywhere in the operation or just after it. Some restarts are killed again
# while they boot (the store's recovery runs then, and a validation whose
# reset did not commit is finished then). After a power off the image is
# read (a copy, mounted read-only by another interpreter) to count the kills
# that cut a commit short: log records past the meter record's head, or a
# temporary copy not yet renamed; such a round must read as "before".
#
# Expected meters are computed here from 653b.1(c)(4) as typed below (A1: $1
# minimum wager, 2%, $100-$200), from the seats that have chips and a UTH
# wager, never from the firmware's tables. The hit value of each cycle comes
# from the board's TEST-ONLY seeded random source (SHA-256 of "SEED:COUNTER",
# the stream and the draw written again in independent_draws.py, without the
# firmware's code): the seeded source starts over at every boot, so a
# cycle's value is the first, second, ... draw of a fresh stream, recognised
# by its commitment.
#
# Checked after every operation, killed or not: the meters are the expected
# ones before or after it (the meters after, whenever the host had already
# received the operation's committed event); seeded + contributed = paid +
# meter; the event log read over the host link chains (mystery.chain.verify),
# reaches the meters' log_seq, keeps every record it ever showed unchanged and
# holds exactly the expected new records; the cycle's commitment is unchanged
# within a cycle and every hit reveals the value and salt of its commitment;
# status agrees with the meters; no fault and no store warning at boot.
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import threading
import time

import pytest
from independent_draws import SeedStream, commitment, draw, seeded_draws
from vboard_procs import alive, image_holders, interpreter_pids

from mystery import chain
from mystery.store import TMP_NAME
from uthctl.boards.virtual import REPO, VirtualBoard, find_micropython
from uthctl.links.board_link import Link, LinkError
from uthctl.links.rig import Rig, lit

MICROS_PER_CENT = 10_000
A1_MIN_WAGER_CENTS = 100
A1_RATE_BP = 200  # 2%: cents x basis points = micro-dollars
A1_MINIMUM = 100 * 1_000_000
A1_MAXIMUM = 200 * 1_000_000
CONTRIBUTION = A1_MIN_WAGER_CENTS * A1_RATE_BP  # 20,000 micro-dollars: 2 cents a seat
LAST_HITS = 25
SEATS = 6

STARTED = time.time()  # the board's clock stamps hits: none may predate this run
KILLS = 60  # kills to make (operations killed plus boots killed)
# The play is bounded by a count of operations, not by the wall clock: a slow
# machine takes longer, never makes fewer kills (about 3 in 4 operations are
# killed, so 60 come in about 80). Every wait below bounds a hang on its own.
MAX_OPERATIONS = 2 * KILLS
MIN_KILLS = 30  # fewer only if the operations ran out: a failure
RNG_SEED = 653_2024  # the kill moments and the seats played
HIT_WINDOW_CENTS = 90  # the seed's first two hit values lie this close to $100
COMPARED = ("meter", "contributed", "seeded", "paid", "hits", "cycle", "round", "config",
            "phase", "pending", "last_hits", "display_cents", "log_seq", "qualifying_wagers",
            "wagered")


# The virtual board's own: SIGKILLs of its interpreter found under /proc, UTH
# sensors (the Pico wires none) and its image read by the unix port. The
# emulated Pico's cuts at each flash operation: test_pico_power_cut.py.
pytestmark = [pytest.mark.usefixtures("micropython"), pytest.mark.target("sim"),
              pytest.mark.board, pytest.mark.slow]


# ---- the TEST-ONLY random source, as boards/sim/board.py has it ----


def draws(seed, count):
    # The first `count` A1 (hit value, salt) a freshly booted seeded board
    # draws, the values in micro-dollars as the board reports them.
    return [(cents * MICROS_PER_CENT, salt) for cents, salt in
            seeded_draws(seed, A1_MINIMUM // MICROS_PER_CENT, A1_MAXIMUM // MICROS_PER_CENT,
                         count)]


def find_seed():
    # A seed whose first two draws lie within HIT_WINDOW_CENTS of $100, so
    # cycles hit within the run whether or not a boot came between them.
    limit = A1_MINIMUM + HIT_WINDOW_CENTS * MICROS_PER_CENT
    for seed in range(1, 1_000_000):
        if draws(seed, 1)[0][0] <= limit and draws(seed, 2)[1][0] <= limit:
            return seed
    raise AssertionError("no seed found")


# ---- the interpreter process ----




def wait_pid(flash, not_pid=None, timeout=5.0):
    # The interpreter's pid, once one other than not_pid runs.
    deadline = time.monotonic() + timeout
    while True:
        pids = [pid for pid in interpreter_pids(flash) if pid != not_pid]
        if len(pids) == 1:
            return pids[0]
        if time.monotonic() > deadline:
            raise AssertionError("no single interpreter on %s (found %s)" % (flash, pids))
        time.sleep(0.002)


# ---- a look at the flash image while the power is off ----

INSPECT = r"""
import json, os, sys
sys.path.append(%(board)r)
from simboot import FileFlash
from mystery.copies import exists
os.mount(os.VfsLfs2(FileFlash(%(image)r)), "/img", readonly=True)
root = "/img/meter"
best = None
for name in ("meter.a", "meter.b"):
    try:
        with open(root + "/" + name) as f:
            header, body = f.read().split("\n", 1)
        seq = int(header.split(" ")[1])
        head = json.loads(body)["log_seq"]
        if best is None or seq > best[0]:
            best = (seq, head)
    except (OSError, ValueError, IndexError, KeyError):
        pass
last = 0
names = os.listdir(root + "/log") if exists(root + "/log") else []
for name in names:
    if name.endswith(".log"):
        with open(root + "/log/" + name) as f:
            for line in f:
                try:
                    last = max(last, json.loads(line)["seq"])
                except (ValueError, KeyError):
                    break  # a torn last line: the rest of the segment is unwritten
print("INSPECT", best[1] if best else -1, last, int(exists(root + "/%(tmp)s")))
"""


def inside_commit(flash, scratch):
    # True when the image holds a commit cut short: log records past the
    # meter record's head, or a temporary copy not yet renamed over a copy.
    image = scratch / "inspect.img"
    shutil.copyfile(flash, image)
    script = INSPECT % {"board": str(REPO / "boards" / "sim"), "image": str(image),
                        "tmp": TMP_NAME}
    done = subprocess.run([find_micropython(), "-c", script], capture_output=True, text=True,
                          timeout=10, env=dict(os.environ, MICROPYPATH=str(REPO / "firmware")))
    words = [line for line in done.stdout.splitlines() if line.startswith("INSPECT")]
    assert words, (done.stdout, done.stderr)
    head, last, tmp = (int(w) for w in words[0].split()[1:])
    return last > head or tmp == 1


# ---- the host link, keeping every event ----


class Aborted(Exception):
    # The board was killed while an operation waited on it.
    pass


class Host:
    def __init__(self, link):
        self.link = link
        self.events = []  # every event seen, in order
        self.next_id = 1

    def pump(self, timeout):
        message = self.link.read_message(timeout)
        if message is not None and "ev" in message:
            self.events.append(message)
        return message

    def command(self, cmd, timeout=3.0, **fields):
        # (reply, log records sent before it).
        number, self.next_id = self.next_id, self.next_id + 1
        self.link.send(dict(fields, cmd=cmd, id=number))
        records = []
        deadline = time.monotonic() + timeout
        while True:
            message = self.pump(min(0.05, max(0.0, deadline - time.monotonic())))
            if message is None:
                if time.monotonic() > deadline:
                    raise LinkError("no reply to %r" % cmd)
            elif message.get("reply") == "log" and "record" in message:
                records.append(message["record"])
            elif message.get("id") == number:
                return message, records

    def wait_event(self, predicate, start, timeout, aborted):
        # The first event from index `start` on that predicate accepts.
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events[start:]:
                if predicate(event):
                    return event
            start = len(self.events)
            if aborted():
                raise Aborted
            if time.monotonic() > deadline:
                raise LinkError("no such event within %.1f s" % timeout)
            self.pump(0.02)

    def ping_until_running(self, timeout=10.0):
        self.link.write(b"\r\n")  # ends whatever a killed board left half sent
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.command("ping", timeout=0.5)[0]
            except LinkError:
                if time.monotonic() > deadline:
                    raise


# ---- the expected meters, from the rules ----


def _timeless(name, value):
    # A pending hit's time is the board's clock at the hit, which the model
    # cannot foresee; it is checked for sense in hit_time_is_plausible().
    if name == "pending" and value is not None:
        return value[:4]
    return value


def hit_time_is_plausible(meters, started):
    when = meters["pending"][4] if meters["pending"] else None
    return when is None or started - 5 <= when <= time.time() + 5


def display_cents(m):
    if m["phase"] == "pending":
        return m["pending"][1] // MICROS_PER_CENT
    return m["meter"] // MICROS_PER_CENT


def after_round(m, qualifying, hit_value, salt):
    # The meters and new log records after a round with these qualifying seats.
    a = json.loads(json.dumps(m))
    a["round"] += 1
    contributions, hit = [], None
    for seat in sorted(qualifying):
        a["meter"] += CONTRIBUTION
        a["contributed"] += CONTRIBUTION
        a["qualifying_wagers"] += 1  # the wager meters: each qualifying wager, and its cents
        a["wagered"] += A1_MIN_WAGER_CENTS * MICROS_PER_CENT
        contributions.append([seat, A1_MIN_WAGER_CENTS, CONTRIBUTION])
        if a["phase"] == "running" and a["meter"] > hit_value:
            award = min(a["meter"] - a["meter"] % MICROS_PER_CENT, A1_MAXIMUM)
            a["pending"] = [seat, award, a["cycle"], a["round"], None]  # time: the board's
            a["phase"] = "pending"
            hit = {"ev": "hit", "seat": seat, "award": award, "cycle": a["cycle"],
                   "round": a["round"], "hit_value": hit_value, "salt": salt,
                   "commitment": m["commitment"]}
    records = [{"ev": "round", "round": a["round"], "contributions": contributions,
                "meter": a["meter"], "qualifying_wagers": a["qualifying_wagers"],
                "wagered": a["wagered"]}] + ([hit] if hit else [])
    a["log_seq"] += len(records)
    a["display_cents"] = display_cents(a)
    return a, records


def after_validation(m, payment="table_inventory"):
    # Validation, payment and the new cycle's reset (its commitment unknown here).
    a = json.loads(json.dumps(m))
    seat, award, cycle, round_number, when = m["pending"]
    a["paid"] += award
    a["meter"] += A1_MINIMUM - award
    a["seeded"] += A1_MINIMUM
    a["hits"] += 1
    a["cycle"] += 1
    a["last_hits"] = (a["last_hits"] + [[seat, award, cycle, round_number, payment, when]])[
        -LAST_HITS:]
    a["pending"] = None
    a["phase"] = "running"
    a["commitment"] = None
    a["log_seq"] += 3
    a["display_cents"] = display_cents(a)
    # No employee or slip: the host gives none before the key turn here.
    records = [{"ev": "validated", "seat": seat, "award": award, "cycle": cycle,
                "employee": None, "slip": None},
               {"ev": "paid", "seat": seat, "award": award, "cycle": cycle,
                "payment": payment},
               {"ev": "reset", "cycle": cycle + 1, "config": "A1",
                "meter": a["meter"], "commitment": None}]
    return a, records


# ---- the table ----


class Killer:
    # One kill: `delay` seconds after arm(), from a thread of its own, or
    # after fire_inline() starts, from the caller's thread (less latency).
    def __init__(self, table, method, moment, delay):
        self.table = table
        self.method = method
        self.moment = moment  # "commit", "press": armed at the LOCK / key; "any": before
        self.delay = delay
        self.fired = threading.Event()
        self.pid = None
        self.error = None
        self.timer = None

    def arm(self):
        if self.timer is None:
            self.pid = wait_pid(self.table.vb.flash)
            self.timer = threading.Timer(self.delay, self._fire)
            self.timer.start()

    def fire_inline(self):
        # For "commit": called the moment the rig's set returns, pid known before.
        until = time.perf_counter() + self.delay
        while time.perf_counter() < until:
            pass
        self._fire()

    def _fire(self):
        try:
            if self.method == "power":
                self.table.power_rig.power(False)  # the supervisor SIGKILLs it
            else:
                os.kill(self.pid, signal.SIGKILL)
        except Exception as error:  # noqa: BLE001 - reported by the main thread
            self.error = error
        finally:
            self.fired.set()

    def wait(self, timeout=10.0):
        if self.timer is not None:
            self.timer.join(timeout)
        assert self.fired.is_set() and self.error is None, self.error

    def cancel(self):
        if self.timer is not None:
            self.timer.cancel()
            self.timer.join(5.0)


class Table:
    def __init__(self, vb, link, rig, power_rig, seed, scratch):
        self.vb = vb
        self.host = Host(link)
        self.rig = rig
        self.power_rig = power_rig  # used by Killer threads only
        self.seed = seed
        self.scratch = scratch
        self.candidates = {}  # commitment -> (hit value, salt) of a fresh stream's draws
        for value, salt in draws(seed, 6):
            self.candidates[commitment(value // MICROS_PER_CENT, salt)] = (value, salt)
        self.model = None  # the meters as they must be now
        self.cycle, self.reset_round = None, None  # the model's cycle, and its first round
        self.known = {}  # log seq -> hash of every record seen
        self.killer = None

    # -- the rig, watching for the kill --

    def aborted(self):
        return self.killer is not None and self.killer.fired.is_set()

    def set(self, pin, level):
        if self.aborted():
            raise Aborted
        self.rig.set(pin, level)

    def wait_rig(self, predicate, timeout=5.0):
        deadline = time.monotonic() + timeout
        while not predicate(self.rig.state()):
            if self.aborted():
                raise Aborted
            if time.monotonic() > deadline:
                raise AssertionError("rig state never came: %s" % self.rig.state())
            time.sleep(0.01)

    def sleep(self, seconds):
        if self.killer is None:
            time.sleep(seconds)
        elif self.killer.fired.wait(seconds):
            raise Aborted

    def press(self, pin):
        # The LOCK or key level set, the kill armed for the moments timed from it.
        if self.killer is not None and self.killer.moment == "press":
            self.killer.arm()
        if self.killer is not None and self.killer.moment == "commit":
            self.killer.pid = wait_pid(self.vb.flash)
            self.set(pin, 1)
            self.killer.fire_inline()
            raise Aborted
        self.set(pin, 1)
        self.sleep(0.1)
        self.set(pin, 0)

    def clear_inputs(self):
        for seat in range(1, SEATS + 1):
            self.rig.set("bet%d" % seat, 0)
            self.rig.set("uth%d" % seat, 1)
        self.rig.set("lock", 0)
        self.rig.set("key", 0)

    # -- reading the board --

    def hit_of(self, commitment):
        assert commitment in self.candidates, "a commitment no fresh seeded draw makes"
        return self.candidates[commitment]

    def observe(self):
        # Meters, status and log, checked for consistency on their own.
        reply, _ = self.host.command("meters")
        assert reply["ok"], reply
        meters = reply["meters"]
        assert meters["seeded"] + meters["contributed"] == meters["paid"] + meters["meter"]
        status, _ = self.host.command("status")
        assert status["ok"] and status["fault"] is None, status
        assert status["state"] == ("hit_pending" if meters["phase"] == "pending" else
                                   "betting"), (status, meters)
        for name in ("cycle", "round", "config", "phase", "commitment"):
            assert status[name] == meters[name], (name, status, meters)
        reply, records = self.host.command("log", since=0, timeout=10.0)
        assert reply["ok"] and reply["count"] == len(records), reply
        first_prev = chain.GENESIS if meters["log_dropped"] == 0 else None
        ok, message = chain.verify(records, first_prev)
        assert ok, message
        assert records and records[-1]["seq"] == meters["log_seq"], (records[-1:], meters)
        assert records[-1]["hash"] == meters["log_hash"]  # the head the meters name
        assert len(records) == meters["log_seq"] - meters["log_dropped"]
        for record in records:
            if record["seq"] in self.known:  # a committed record never changes
                assert self.known[record["seq"]] == record["hash"], record
        self.known.update((record["seq"], record["hash"]) for record in records)
        return meters, {record["seq"]: record for record in records}

    def matches(self, meters, log, expected, records, base, boots=0):
        # Whether the board shows exactly `expected`, with `records` its last
        # ones past `base` (the head before the operation), among them a
        # `start` record of the last of `boots` restarts and at most one of
        # each restart killed before it. A start moves no meter, and comes
        # before what a boot finishes (a validation's reset cut short).
        past = [log[seq] for seq in range(base + 1, meters["log_seq"] + 1)]
        starts = sum(record["ev"] == "start" for record in past)
        if not (starts == boots == 0 or 1 <= starts <= boots):
            return False
        # A key still held when a validated round's chips are gone takes the
        # table to service mode (controller.py): entered and left, records
        # of their own that move no meter either.
        service = sum(record["ev"] == "service" for record in past)
        if meters["log_seq"] != expected["log_seq"] + starts + service:
            return False
        if any(_timeless(name, meters[name]) != _timeless(name, expected[name])
               for name in COMPARED if name != "log_seq"):
            return False
        if expected["commitment"] is not None and meters["commitment"] != expected["commitment"]:
            return False
        got = [{k: v for k, v in record.items() if k not in ("seq", "prev", "hash", "time")}
               for record in past if record["ev"] not in ("start", "service")]
        want = [dict(record, commitment=meters["commitment"])
                if record.get("ev") == "reset" and record["commitment"] is None else record
                for record in records]
        return got == want

    def accept(self, meters):
        # The board's meters become the model; a new cycle's value is looked up.
        assert hit_time_is_plausible(meters, STARTED), meters["pending"]
        self.model = {name: meters[name] for name in COMPARED + ("commitment",)}
        if meters["cycle"] != self.cycle:
            self.cycle, self.reset_round = meters["cycle"], meters["round"]
        if meters["phase"] == "running":
            self.hit_value, self.salt = self.hit_of(meters["commitment"])
            assert self.hit_value >= A1_MINIMUM

    def redraw(self, meters):
        # A round that hit, cut after its log records landed and before its
        # meter record: the boot found the cycle's value exposed. docs/mystery.md's
        # recovery: the key held, the host's redraw, the key released. The
        # redraw is the first draw of the booted board's fresh stream, over
        # [meter, maximum - 1 cent] once the cycle had a contribution (every
        # round played here has one), else the whole range.
        assert meters["exposed"] is True, meters
        self.rig.key(True)
        self.rig.wait_for(lambda s: s["display"] == "SErvICE", what="service mode")
        reply, _ = self.host.command("redraw")
        assert reply["ok"], reply
        self.rig.key(False)
        self.wait_state(("betting",))
        low = A1_MINIMUM if meters["round"] == self.reset_round else meters["meter"]
        take = SeedStream(self.seed)
        top = A1_MAXIMUM // MICROS_PER_CENT
        cents, salt = draw(take, -(-low // MICROS_PER_CENT), top)
        assert reply["commitment"] == commitment(cents, salt), "not the documented redraw"
        self.candidates[reply["commitment"]] = (cents * MICROS_PER_CENT, salt)
        for _ in range(5):  # the later cycles' draws, from the same stream
            cents, salt = draw(take, A1_MINIMUM // MICROS_PER_CENT, top)
            self.candidates[commitment(cents, salt)] = (cents * MICROS_PER_CENT, salt)
        meters, _ = self.observe()
        assert meters["exposed"] is False and meters["commitment"] == reply["commitment"]
        return meters

    # -- operations --

    def play_round(self, chips, no_uth):
        # Chips on, LOCK, chips off; returns after the round as the board shows it.
        start = len(self.host.events)
        for seat in no_uth:
            self.set("uth%d" % seat, 0)
        for seat in chips:
            self.set("bet%d" % seat, 1)
        self.wait_rig(lambda s: lit(s["bet_lights"]) == sorted(chips))  # betting
        self.press("lock")
        number = self.model["round"] + 1
        self.host.wait_event(lambda e: e["ev"] == "locked" and e["round"] == number, start,
                             5.0, self.aborted)
        for seat in chips:
            self.set("bet%d" % seat, 0)
        for seat in no_uth:
            self.set("uth%d" % seat, 1)
        # Betting again (every light off), or a hit pending (its jackpot light on).
        self.wait_rig(lambda s: any(s["jackpot_lights"]) or not any(s["bet_lights"]))
        # A round no seat qualified for shows no light while locked: the board
        # says when its spots have been clear long enough to end the round.
        self.wait_state(("betting", "hit_pending"))

    def wait_state(self, states, timeout=5.0):
        deadline = time.monotonic() + timeout
        while True:
            status, _ = self.host.command("status")
            if status.get("state") in states:
                return
            if self.aborted():
                raise Aborted
            if time.monotonic() > deadline:
                raise AssertionError("the board stayed %s" % status.get("state"))
            time.sleep(0.02)

    def validate(self):
        start = len(self.host.events)
        self.press("key")
        cycle = self.model["cycle"] + 1
        self.host.wait_event(lambda e: e["ev"] == "reset" and e["cycle"] == cycle, start, 5.0,
                             self.aborted)
        self.wait_rig(lambda s: not any(s["jackpot_lights"]) and not any(s["bet_lights"]))
        # The hit's round stays in play until its spots have been clear 250 ms.
        self.wait_state(("betting",))

    def committed(self, start, op):
        # Whether the host received the operation's committed event before the kill.
        for event in self.host.events[start:]:
            if op == "round" and event["ev"] == "locked" and \
                    event["round"] == self.model["round"] + 1:
                return True
            if op == "validate" and event["ev"] in ("validated", "paid") and \
                    event["cycle"] == self.model["cycle"]:
                return True
        return False

    def recover(self, killer, rng, stats):
        # After the kill: power on if it was a cut, maybe kill the boot too, then
        # wait for the controller. Returns the events the boot(s) sent,
        # whether the image showed a commit cut short, and how many boots ran.
        start = len(self.host.events)
        killer.wait()
        cut_short = False
        if killer.method == "power":
            # Nothing of the old board runs on: no interpreter has the image open.
            assert not alive(killer.pid) and not image_holders(self.vb.flash), killer.pid
            cut_short = inside_commit(self.vb.flash, self.scratch)
            stats["inside_commit"] += cut_short
            self.clear_inputs()  # the board powers on with no chips and no buttons
            self.rig.power(True)
        old = killer.pid
        boots = 1
        if rng.random() < 0.2:
            pid = wait_pid(self.vb.flash, not_pid=old)
            time.sleep(rng.uniform(0.0, 0.08))  # into its boot and the store's recovery
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            stats["kills"] += 1
            stats["boot_kills"] += 1
            boots += 1
            old = pid
        self.clear_inputs()
        self.host.ping_until_running()
        new = wait_pid(self.vb.flash, not_pid=old)
        assert new != killer.pid
        return self.host.events[start:], cut_short, boots


# ---- the test ----


@pytest.fixture
def table(tmp_path):
    seed = find_seed()
    with contextlib.ExitStack() as stack:
        vb = VirtualBoard(flash=tmp_path / "flash.img", seed=seed)
        stack.callback(vb.stop)
        vb.start()
        link = stack.enter_context(Link(vb.serial_path, timeout=10.0))
        rig = stack.enter_context(Rig(vb.rig_address))
        power_rig = stack.enter_context(Rig(vb.rig_address))
        board = Table(vb, link, rig, power_rig, seed, tmp_path)
        try:
            yield board
        finally:
            if board.killer is not None:
                board.killer.cancel()


def test_vboard_power_cuts_leave_every_meter_before_or_after(table):
    rng = random.Random(RNG_SEED)
    stats = dict.fromkeys(("kills", "before", "after", "boot_kills", "inside_commit", "reported",
                           "commit", "press", "any", "power", "sigkill", "rounds", "validations",
                           "redrawn", "killed_validations", "hits", "unkilled"), 0)
    host, rig = table.host, table.rig
    host.ping_until_running()

    # Configuration A1 in service mode, not killed.
    rig.key(True)
    rig.wait_for(lambda s: s["display"] == "SErvICE", what="service mode")
    start = len(host.events)
    assert host.command("config", mystery="A1")[0]["ok"]
    rig.key(False)
    reset = host.wait_event(lambda e: e["ev"] == "reset", start, 5.0, lambda: False)
    # The key's release is the table's to read on its next tick: status waits for it.
    rig.wait_for(lambda s: s["display"] != "SErvICE", what="play")
    meters, log = table.observe()
    assert (meters["meter"], meters["seeded"], meters["cycle"], meters["round"]) == (
        A1_MINIMUM, A1_MINIMUM, 1, 0)
    assert meters["commitment"] == reset["commitment"]
    table.accept(meters)
    assert table.hit_value == draws(table.seed, 1)[0][0]

    began = time.monotonic()
    for _ in range(MAX_OPERATIONS):
        if stats["kills"] >= KILLS:
            break
        op = "validate" if table.model["phase"] == "pending" else "round"
        killed = rng.random() < (0.9 if op == "validate" else 0.75)
        if killed:
            moment = rng.choice(("commit", "commit", "commit", "press", "any", "any"))
            method = rng.choice(("power", "power", "sigkill"))
            delay = {"commit": rng.uniform(0.0, 0.0015), "press": rng.uniform(0.0, 0.008),
                     "any": rng.uniform(0.03, 0.4)}[moment]
            table.killer = Killer(table, method, moment, delay)
            if moment == "any":
                table.killer.arm()  # timed from the operation's start
            stats[moment] += 1
            stats[method] += 1
        else:
            table.killer = None
        before = dict(table.model)
        if op == "round":
            chips = sorted(rng.sample(range(1, SEATS + 1), rng.randint(2, SEATS)))
            no_uth = [rng.choice(chips)] if rng.random() < 0.3 else []
            qualifying = [seat for seat in chips if seat not in no_uth]
            after, records = after_round(before, qualifying, table.hit_value, table.salt)
        else:
            after, records = after_validation(before)
        start = len(host.events)
        try:
            if op == "round":
                table.play_round(chips, no_uth)
            else:
                table.validate()
        except (Aborted, LinkError):
            if not table.aborted():
                raise

        if killed:
            killer, table.killer = table.killer, None
            stats["kills"] += 1
            boot_events, cut_short, boots = table.recover(killer, rng, stats)
            committed_seen = table.committed(start, op)  # events the killed board sent
            # The boot may report the cut operation's log records dropped;
            # any other warning, or a fault, is a failure.
            reported = [e for e in boot_events if e["ev"] == "store_warning"
                        and e["reason"].startswith("an operation whose meter record never")]
            # A round that hit, cut after its records landed, exposed its value.
            exposed = [e for e in boot_events if e["ev"] == "store_warning"
                       and "hit value was written to flash" in e["reason"]]
            assert not [e for e in boot_events if e["ev"] in ("fault", "store_warning")
                        and e not in reported + exposed], boot_events
            stats["reported"] += bool(reported)
        else:
            committed_seen, cut_short, reported, exposed, boots = True, False, [], [], 0
            stats["unkilled"] += 1

        meters, log = table.observe()
        if table.matches(meters, log, after, records, before["log_seq"], boots):
            landed = "after"
        elif table.matches(meters, log, before, [], before["log_seq"], boots):
            landed = "before"
            assert not committed_seen, "the host had the committed event; the meters lost it"
        else:
            raise AssertionError("meters neither before nor after the %s:\n before %s\n "
                                 "after  %s\n board  %s" % (op, before, after, meters))
        if cut_short and op == "round":
            assert landed == "before", "a round cut short on the flash counted after a reboot"
        # A reported round or validation did not happen. (A key turn is two
        # commits, validation then reset: a dropped reset the boot redoes.)
        if [e for e in reported if "(round" in e["reason"] or "(validated" in e["reason"]]:
            assert landed == "before", ("an operation reported dropped counted after a reboot",
                                        op, reported)
        if killed:
            stats[landed] += 1
        else:
            assert landed == "after"
        if meters["cycle"] == before["cycle"]:
            assert meters["commitment"] == before["commitment"]  # the cycle's value kept
        if landed == "after":
            if op == "round":
                stats["rounds"] += 1
                stats["hits"] += meters["phase"] == "pending"
            else:
                stats["validations"] += 1
                stats["killed_validations"] += killed
        if exposed:
            assert landed == "before" and op == "round" and after["phase"] == "pending", (
                "exposed by an operation that did not hit", op, landed)
            meters = table.redraw(meters)
            stats["redrawn"] += 1
        table.accept(meters)

    print("\npower cuts: %(kills)d kills, %(boot_kills)d of them into a restart's boot"
          % stats)
    print("  operations killed: %(before)d landed before, %(after)d after" % stats)
    print("  moments: %(commit)d at the commit, %(press)d at the press, %(any)d anywhere; "
          "ways: %(power)d power off, %(sigkill)d SIGKILL" % stats)
    print("  power-offs that found a commit cut short on the image: %(inside_commit)d" % stats)
    print("  boots that reported a cut operation's log records dropped: %(reported)d (a hit "
          "value exposed and redrawn: %(redrawn)d)" % stats)
    print("  rounds committed %(rounds)d, hits %(hits)d, validations %(validations)d "
          "(%(killed_validations)d under a kill); operations not killed %(unkilled)d" % stats)
    print("elapsed %.1f s" % (time.monotonic() - began))
    assert stats["kills"] >= MIN_KILLS, stats
    assert stats["before"] and stats["after"], stats
    assert stats["hits"] >= 1 and stats["validations"] >= 1, stats
