# The virtual board end to end: the firmware on the unix-port MicroPython
# behind a pty, its flash a littlefs image file, its pins driven through the
# rig port (host_tools/uthctl/boards/virtual.py, boards/sim/board.py). Select these
# with `pytest tests/host/test_vboard.py` or `-k vboard`.
#
# Expected figures come from 653b.1(c)(4) as typed here (A1: $1 minimum
# wager, 2%, $100-$200), not from the firmware's tables. Hit values are made
# predictable with the board's TEST-ONLY seeded random source: SHA-256 of
# "SEED:COUNTER" as a byte stream, and the hit value drawn from it by the
# rule (rejection sampling), both written again in independent_draws.py
# without the firmware's or the supervisor's code.
import ast
import contextlib
import datetime
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from build_identity import VERSION, expected_identity, sources_hash
from independent_draws import commitment, seeded_draws
from targets import SimTarget

from uthctl.boards.handoff import hand_to_repl
from uthctl.boards.max7219_model import reading
from uthctl.cli import main as uthctl
from uthctl.links.board_link import Link
from uthctl.links.logexport import fetch_records
from uthctl.links.rig import Rig, RigError, lit

A1_MINIMUM_CENTS = 100 * 100
A1_MAXIMUM_CENTS = 200 * 100
A1_CENTS_PER_SEAT = 100 * 2 // 100  # a $1 chip at 2%
MICROS_PER_CENT = 10_000
MPREMOTE = Path(sys.executable).parent / "mpremote"
REPO = Path(__file__).resolve().parents[2]
DISPLAY_WAIT = 7.0  # the meter shows 4 s, then "hit bY" and the maximum 3.5 s


pytestmark = pytest.mark.usefixtures("micropython")


# ---- the TEST-ONLY random source, as boards/sim/board.py has it ----


def draws(seed, count):
    # The first `count` A1 hit values (cents) and salts the seeded board draws.
    return seeded_draws(seed, A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS, count)


def find_seed(low_cents, high_cents):
    # The first seed whose first A1 hit value lies in [low, high] cents.
    for seed in range(1, 200_000):
        if low_cents <= draws(seed, 1)[0][0] <= high_cents:
            return seed
    raise AssertionError("no seed found")


def money(cents):
    return "%d.%02d" % divmod(cents, 100)


# ---- fixtures: every board, link and rig is closed, even on failure ----


@pytest.fixture
def table(tmp_path, target):
    # On the target chosen (conftest.py); the sim's own tests ask for "sim".
    with contextlib.ExitStack() as stack:
        yield Table(tmp_path, stack, target)


@pytest.fixture
def sim_table(tmp_path):
    with contextlib.ExitStack() as stack:
        yield Table(tmp_path, stack, SimTarget())


class Table:
    def __init__(self, tmp_path, stack, target):
        self.tmp_path = tmp_path
        self.flash = tmp_path / "flash.img"
        self.stack = stack
        self.target = target

    def board(self, seed=None, power=True, **options):
        vb = self.target.board(self.flash, seed=seed, power=False, **options)
        self.stack.callback(vb.stop)
        if power:
            vb.power(True)
        return vb

    def link(self, vb):
        return self.stack.enter_context(self.target.link(vb.serial_path, timeout=10.0))

    def rig(self, vb):
        return self.stack.enter_context(self.target.rig(vb.rig_address))


def configure(rig, link, name):
    rig.key(True)  # held: service mode
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service mode")
    reply = link.command("config", mystery=name)
    assert reply["ok"], reply
    rig.key(False)
    return link.wait_event("reset")


def play_round(rig, link, seats):
    # Chips on, LOCK, chips off; returns the "locked" event and contributions.
    for seat in seats:
        rig.chip(seat, True)
    rig.wait_for(lambda s: lit(s["bet_lights"]) == sorted(seats), what="bet lights on")
    rig.press_lock()
    locked = link.wait_event("locked")
    contributions = [link.wait_event("contribution") for _ in seats]
    assert lit(rig.state()["bet_lights"]) == sorted(seats)  # the locked-in seats stay lit
    for seat in seats:
        rig.chip(seat, False)
    # The round ends once every spot has been clear for 250 ms: the bet lights go
    # out. A round that hit stays until the key is turned: its jackpot light is on.
    rig.wait_for(lambda s: lit(s["bet_lights"]) == [] or any(s["jackpot_lights"]),
                 what="the round to end")
    return locked, contributions


def first_controller_line(link, target):
    # The first line at power-on that is the host link's. On the virtual board
    # and the Pico that is the first line of all; an ESP32's ROM and bootloader
    # print theirs before it, and a host skips lines that are not JSON objects.
    deadline = time.monotonic() + target.boot_wait  # an emulated board boots slowly
    while True:
        line = link.read_line(max(0.0, deadline - time.monotonic()))
        if line is None or not target.boot_lines or json_object(line):
            return line


def json_object(line):
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def meters_cli(capsys, port, *extra):
    capsys.readouterr()
    assert uthctl(["meters", "--port", port, *extra]) == 0
    return capsys.readouterr().out


# ---- (a) a fresh board, configured and played ----


@pytest.mark.pico_quick
def test_vboard_fresh_board_plays_rounds(table, capsys):
    rounds = [(1, 2, 3), (2, 4, 6), (1, 2, 3, 4, 5, 6)]
    total_cents = A1_CENTS_PER_SEAT * sum(len(seats) for seats in rounds)
    seed = find_seed(A1_MINIMUM_CENTS + total_cents + 100, A1_MAXIMUM_CENTS)  # no hit here
    vb = table.board(seed=seed, power=False)
    link, rig = table.link(vb), table.rig(vb)
    vb.power(True)

    first = first_controller_line(link, table.target)
    assert first is not None and first.endswith(b"}\r\n") and not first.endswith(b"\r\r\n")
    assert json.loads(first) == {"ev": "started", "state": "unconfigured"}
    assert rig.wait_for(lambda s: reading(s["display"]) == reading("no CFG"))["board"]
    status = link.command("status")
    assert {"version": status["version"], "build": status["build"]} == expected_identity(
        table.target.name)

    reset = configure(rig, link, "A1")
    value, salt = draws(seed, 1)[0]
    assert reset["meter"] == A1_MINIMUM_CENTS * MICROS_PER_CENT
    assert reset["commitment"] == commitment(value, salt)

    meter_cents = A1_MINIMUM_CENTS
    for number, seats in enumerate(rounds, 1):
        locked, contributions = play_round(rig, link, seats)
        meter_cents += A1_CENTS_PER_SEAT * len(seats)
        assert locked["round"] == number and locked["meter"] == meter_cents * MICROS_PER_CENT
        assert [(c["seat"], c["wager"], c["amount"]) for c in contributions] == [
            (seat, 100, A1_CENTS_PER_SEAT * MICROS_PER_CENT) for seat in sorted(seats)]
        rig.wait_for(lambda s: not any(s["bet_lights"]), what="bet lights off")
    state = rig.wait_for(lambda s: reading(s["display"]) == money(meter_cents), DISPLAY_WAIT,
                         what="the meter on the display")
    assert not any(state["jackpot_lights"])

    link.close()  # one reader on the port at a time
    report = meters_cli(capsys, vb.serial_path)
    assert "$%s" % money(meter_cents) in report and "A1" in report
    meters = json.loads(meters_cli(capsys, vb.serial_path, "--json"))
    assert meters["meter"] == meter_cents * MICROS_PER_CENT
    assert meters["contributed"] == total_cents * MICROS_PER_CENT
    assert meters["seeded"] == A1_MINIMUM_CENTS * MICROS_PER_CENT
    assert (meters["paid"], meters["hits"], meters["cycle"]) == (0, 0, 1)
    assert (meters["config"], meters["phase"], meters["round"]) == ("A1", "running", 3)
    assert meters["display_cents"] == meter_cents


# ---- (b) a hit, made to come quickly by the TEST-ONLY seed ----


@pytest.mark.pico_quick
def test_vboard_hit_is_shown_validated_and_reset(table):
    seats = (1, 2, 4, 5)
    # A hit within two rounds: the meter must pass the hit value by then.
    seed = find_seed(A1_MINIMUM_CENTS, A1_MINIMUM_CENTS + 2 * len(seats) * A1_CENTS_PER_SEAT - 1)
    (value, salt), (next_value, next_salt) = draws(seed, 2)
    # The hit comes with the contribution that takes the meter above the value.
    hit_index = (value - A1_MINIMUM_CENTS) // A1_CENTS_PER_SEAT  # 0-based seat-round
    hit_round, hit_seat = hit_index // len(seats) + 1, seats[hit_index % len(seats)]
    award_cents = A1_MINIMUM_CENTS + (hit_index + 1) * A1_CENTS_PER_SEAT
    carried_cents = (len(seats) - 1 - hit_index % len(seats)) * A1_CENTS_PER_SEAT

    vb = table.board(seed=seed)
    link, rig = table.link(vb), table.rig(vb)
    link.wait_ready()
    configure(rig, link, "A1")
    for _ in range(hit_round):
        play_round(rig, link, seats)
    hit = link.wait_event("hit")
    assert (hit["seat"], hit["round"], hit["cycle"]) == (hit_seat, hit_round, 1)
    assert hit["award"] == award_cents * MICROS_PER_CENT
    assert (hit["hit_value"], hit["salt"]) == (value * MICROS_PER_CENT, salt)

    state = rig.wait_for(lambda s: reading(s["display"]) == money(award_cents),
                         what="the award shown")
    assert lit(state["jackpot_lights"]) == [hit_seat]
    assert link.command("status")["state"] == "hit_pending"

    rig.turn_key()  # the floorperson validates
    assert link.wait_event("validated")["award"] == award_cents * MICROS_PER_CENT
    assert link.wait_event("paid")["payment"] == "table_inventory"
    reset = link.wait_event("reset")
    assert reset["cycle"] == 2
    assert reset["commitment"] == commitment(next_value, next_salt)
    # The chips were taken away while the hit was pending: betting again.
    rig.wait_for(lambda s: not any(s["jackpot_lights"]) and not any(s["bet_lights"]),
                 what="jackpot light off and betting again")

    meters = link.command("meters")["meters"]
    assert meters["meter"] == (A1_MINIMUM_CENTS + carried_cents) * MICROS_PER_CENT
    assert meters["paid"] == award_cents * MICROS_PER_CENT
    assert (meters["hits"], meters["cycle"], meters["phase"]) == (1, 2, "running")
    (last_hit,) = meters["last_hits"]
    assert last_hit[:5] == [hit_seat, award_cents * MICROS_PER_CENT, 1, hit_round,
                            "table_inventory"]
    earliest, latest = table.target.clock_window(rig)
    assert earliest <= last_hit[5] <= latest  # the board's clock at the hit
    assert meters["seeded"] + meters["contributed"] == meters["paid"] + meters["meter"]
    rig.wait_for(lambda s: reading(s["display"]) == money(A1_MINIMUM_CENTS + carried_cents),
                 DISPLAY_WAIT, what="the new meter")


# ---- (c) the REPL handed over, Ctrl-D: the interpreter restarts, the meters persist ----


@pytest.mark.board
@pytest.mark.target("sim")  # a soft reboot counted as a boot: the sim's own rule
def test_vboard_soft_reset_keeps_the_meters(sim_table):
    table = sim_table
    vb = table.board()
    link, rig = table.link(vb), table.rig(vb)
    link.wait_ready()
    configure(rig, link, "A1")
    play_round(rig, link, (3,))
    before = link.command("meters")["meters"]
    rig.chip(5, True)  # a level the restarted board must be told again
    rig.wait_for(lambda s: lit(s["bet_lights"]) == [5], what="bet light 5")

    link.events.clear()  # the boot's "started" among them
    # The REPL as a technician reaches it: the key held, `repl` (no byte alone stops it).
    rig.key(True)
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service mode")
    assert link.command("repl")["ok"]
    rig.key(False)
    shown = link.read_until(b">>> ")
    assert shown.count(b"\n") == shown.count(b"\r\n") > 0  # "\r\n" throughout
    link.write(b"\x04")  # soft reset at the friendly REPL: main.py runs again
    assert link.read_until(b"MPY: soft reboot\r\n")
    assert link.wait_event("started")["state"] in ("betting", "hit_pending")
    after = link.command("meters")["meters"]
    # The money as it was; service mode entered and the `repl` record after
    # the last (then service mode left, if the key's release was read before
    # the port was handed over), the soft reboot's `start`, the value exposed.
    for name in ("meter", "contributed", "seeded", "paid", "cycle", "round", "hits"):
        assert after[name] == before[name], name
    added = after["log_seq"] - before["log_seq"]
    assert added in (3, 4) and after["exposed"] is True, after
    assert last_events(link, added) in (["service", "repl", "start"],
                                        ["service", "repl", "service", "start"])
    state = rig.wait_for(lambda s: lit(s["bet_lights"]) == [5], what="bet light 5 again")
    assert state["boots"] == 2

    # The image is kept when the supervisor itself restarts, and not reformatted.
    link.close()
    vb.stop()
    vb = table.board()
    link = table.link(vb)
    link.wait_ready()
    again = link.command("meters")["meters"]
    # Only this start's own record past the head: log_seq, log_hash and
    # nothing else moved.
    assert {k: v for k, v in again.items() if not k.startswith("log_")} == \
        {k: v for k, v in after.items() if not k.startswith("log_")}
    assert again["log_seq"] == after["log_seq"] + 1
    assert last_events(link, 1) == ["start"]


def last_events(link, count):
    # The kinds of the board's last `count` log records.
    return [record["ev"] for record in fetch_records(link, 0)[-count:]]


# ---- (d) mpremote against the pty ----


def mpremote(vb, *args, timeout=30):
    done = subprocess.run([str(MPREMOTE), "connect", vb.serial_path, *args],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.mark.board
@pytest.mark.target("sim")  # the firmware lent from the host, the sim's boot count
def test_vboard_mpremote_exec_fs_and_restart(sim_table, tmp_path):
    table = sim_table
    vb = table.board()
    rig = table.rig(vb)
    with Link(vb.serial_path) as link:
        link.wait_ready()

    hand_to_repl(vb.serial_path, vb.rig_address)  # the key held, `repl`
    assert mpremote(vb, "resume", "exec", "print(1+1)").strip() == "2"
    assert "meter/" in mpremote(vb, "resume", "fs", "ls")
    sent, back = tmp_path / "sent.txt", tmp_path / "back.txt"
    sent.write_text("".join("line %d of a file for the board\n" % n for n in range(200)))
    mpremote(vb, "resume", "fs", "cp", str(sent), ":note.txt")
    mpremote(vb, "resume", "fs", "cp", ":note.txt", str(back))
    assert back.read_bytes() == sent.read_bytes()
    # Without `resume` mpremote soft-resets in the raw REPL first: emulated.
    assert "note.txt" in mpremote(vb, "fs", "ls")
    assert mpremote(vb, "exec", "import os; print(os.getcwd())").strip() == "/"
    # The board's flash is its whole filesystem: nothing of the host's at /,
    # and the firmware folders it is lent cannot be written.
    root = mpremote(vb, "resume", "fs", "ls", ":/")
    assert "note.txt" in root and "meter/" in root
    assert not [name for name in ("etc/", "tmp/", "usr/", "proc/") if name in root], root
    refused = mpremote(vb, "resume", "exec", "try:\n open('/.host_firmware/x.py', 'w')\n"
                       "except OSError as e:\n print('refused', e)")
    assert refused.startswith("refused"), refused
    assert rig.state()["repl"] == "friendly"  # mpremote left with Ctrl-B

    with Link(vb.serial_path) as link:
        link.write(b"\x04")  # soft reset from the friendly REPL runs the controller
        assert link.wait_event("started")["state"] == "unconfigured"
        assert link.command("meters")["ok"]
    rig.wait_for(lambda s: s["board"] and reading(s["display"]) == reading("no CFG"),
                 what="the board rewired")

    hand_to_repl(vb.serial_path, vb.rig_address)  # the controller runs again: the key, `repl`
    mpremote(vb, "reset")  # machine.reset(): a power cycle, main.py runs
    # boots: 1 power-on, 2-3 mpremote's soft resets, 4 Ctrl-D, 5 soft reset, 6 machine.reset
    rig.wait_for(lambda s: s["board"] and s["boots"] == 6, what="the board after reset")
    with Link(vb.serial_path) as link:
        link.wait_ready()


# ---- the clock, set as the README and docs/boards.md tell a technician to ----

AHEAD_HOURS = 10  # TZ "XYZ-10": mpremote's local time runs ten hours ahead of UTC


def board_tuple_seconds(t):
    # A board's RTC 8-tuple, read as UTC seconds, and its weekday's check.
    when = datetime.datetime(t[0], t[1], t[2], t[4], t[5], t[6],
                             tzinfo=datetime.timezone.utc)
    assert t[3] == when.weekday() and t[7] == 0, t
    return when.timestamp()


@pytest.mark.board
@pytest.mark.target("sim")  # the sim's battery-backed RTC across a power cycle
def test_vboard_rtc_set_with_mpremote_is_the_boards_clock(sim_table):
    table = sim_table
    seats = (1, 2, 4, 5)
    seed = find_seed(A1_MINIMUM_CENTS, A1_MINIMUM_CENTS + len(seats) * A1_CENTS_PER_SEAT - 1)
    vb = table.board(seed=seed)
    rig = table.rig(vb)
    with Link(vb.serial_path) as link:
        link.wait_ready()

    hand_to_repl(vb.serial_path, vb.rig_address)  # the key held, `repl`
    ahead = dict(os.environ, TZ="XYZ-%d" % AHEAD_HOURS)
    set_from = time.time()  # mpremote sets the wall clock it reads after this, as UTC
    done = subprocess.run([str(MPREMOTE), "connect", vb.serial_path, "resume", "rtc", "--set"],
                          capture_output=True, text=True, timeout=30, env=ahead)
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done
    read = ast.literal_eval(mpremote(vb, "resume", "rtc").strip())
    assert_between(board_tuple_seconds(read), set_from)
    # time follows the RTC as on a board, which keeps no time zone.
    clock = mpremote(vb, "resume", "exec", "import time\nt = time.time()\n"
                     "print(t, time.localtime(t)[:6] == time.gmtime(t)[:6], "
                     "time.mktime(time.localtime(t)) == t)").split()
    assert_between(int(clock[0]), set_from)
    assert clock[1:] == ["True", "True"], clock

    # The controller restarted (a new interpreter) stamps a hit with that clock.
    with Link(vb.serial_path, timeout=10.0) as link:
        link.write(b"\x04")
        link.wait_event("started")
        configure(rig, link, "A1")
        played_from = time.time()
        play_round(rig, link, seats)
        link.wait_event("hit")
        when = link.command("meters")["meters"]["pending"][4]
    assert_between(when, played_from)

    # A power cycle (the rig's reset button: a hit pending, the key would
    # validate it, so no REPL) keeps it, as a battery-backed RTC does.
    power_cycled_from = time.time()
    boots = rig.state()["boots"]
    rig.reset()
    rig.wait_for(lambda s: s["board"] and s["boots"] > boots, what="the board after reset")
    with Link(vb.serial_path, timeout=10.0) as link:  # read by the controller's `clock`
        link.wait_ready()
        read = link.command("clock")["datetime"]
    when = datetime.datetime(*read, tzinfo=datetime.timezone.utc).timestamp()
    assert_between(when, power_cycled_from)


def assert_between(board_seconds, since):
    # The board's clock, AHEAD_HOURS ahead in the zone mpremote set it in,
    # read between `since` and now on the host's clock: its whole seconds
    # may lag the host's fraction by under one. Bracketed, never a tolerance:
    # however slow the machine, a right clock passes and a wrong one fails.
    ahead = AHEAD_HOURS * 3600
    assert since + ahead - 1 <= board_seconds <= time.time() + ahead + 1, \
        (board_seconds - ahead, since, time.time())


@pytest.mark.slow
@pytest.mark.board
@pytest.mark.target("sim")  # BOARD=sim onto a bare virtual board
def test_make_deploy_onto_a_bare_virtual_board(sim_table, tmp_path):
    table = sim_table
    # The Makefile's own deploy recipe, mpremote included, against a board
    # that has no firmware until it is copied to its flash.
    vb = table.board(lend_firmware=False)
    before = mpremote(vb, "resume", "exec", "import os, sys; print(os.listdir('/'), "
                      "'table' in sys.modules)")
    assert "lib" not in before and before.strip().endswith("False"), before

    build = tmp_path / "build"
    done = subprocess.run(["make", "deploy", "BOARD=sim", "PORT=" + vb.serial_path,
                           "BUILD=" + str(build)], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert (build / "rp2040_pico" / "lib" / "board.mpy").is_file()  # every board was built

    with Link(vb.serial_path, timeout=10.0) as link:  # the reset ran main.py
        link.wait_ready()
        status = link.command("status")
        assert status["ok"] and status["state"] == "unconfigured", status
        # The deployed build's identity, which `make build` wrote.
        assert (status["version"], status["build"]) == (VERSION, sources_hash("sim")), status
    # Every firmware module running came from the deployed build. (The sim's
    # board module stays lent, as a board's own support code is frozen.)
    hand_to_repl(vb.serial_path, vb.rig_address)  # the key held, `repl`
    where = mpremote(vb, "resume", "exec", "import sys\nfor name in sorted(sys.modules):\n"
                     " if name.split('.')[0] in ('table', 'uth', 'mystery'):\n"
                     "  print(name, getattr(sys.modules[name], '__file__', '-'))")
    loaded = dict(line.split() for line in where.strip().splitlines())
    assert {"table.app", "table.controller", "mystery.store", "mystery.meter"} <= set(loaded)
    assert all(path.startswith("/lib/") and path.endswith(".mpy")
               for path in loaded.values()), loaded


# ---- `uthctl sim --headless` and `uthctl rig` as a person runs them ----


def _children(pid):
    found = []
    for task in Path("/proc/%d/task" % pid).iterdir():
        found += [int(n) for n in (task / "children").read_text().split()]
    return found


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path("/proc/%d/stat" % pid)
    return status.exists() and status.read_text().split()[2] != "Z"


@pytest.mark.board
@pytest.mark.target("sim")  # uthctl sim's default board and its interpreters
def test_vboard_headless_cli_and_rig_cli(tmp_path, capsys):
    command = [sys.executable, "-m", "uthctl.cli", "sim", "--headless",
               "--flash", str(tmp_path / "flash.img")]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 15.0)
        assert ready, "uthctl sim --headless printed nothing"
        addresses = json.loads(proc.stdout.readline())
        assert set(addresses) >= {"serial", "rig"}
        with Link(addresses["serial"]) as link:
            link.wait_ready()
        interpreters = _children(proc.pid)
        assert interpreters

        capsys.readouterr()
        assert uthctl(["rig", "--sim", addresses["rig"], "chip", "2", "on"]) == 0
        assert capsys.readouterr().out == "seat 2: chip placed\n"  # says what it did
        assert uthctl(["rig", "--sim", addresses["rig"], "state", "--json"]) == 0
        state = json.loads(capsys.readouterr().out)
        assert state["inputs"]["bet2"] == 1 and state["display"] in ("no CFG", None)
        assert uthctl(["rig", "--sim", addresses["rig"], "state"]) == 0
        assert "chips          2" in capsys.readouterr().out
        held = ("key held turned: service mode, at the round's end if one is in play (uthctl "
                "status says which)")
        for level, said in (("on", held), ("off", "key released")):
            assert uthctl(["rig", "--sim", addresses["rig"], "key", level]) == 0
            assert capsys.readouterr().out == said + "\n"
        assert uthctl(["rig", "--sim", addresses["rig"], "chip", "7", "on"]) == 0
        # Seven seats make a table, all wired; a pin beyond them is named and refused.
        with Rig(addresses["rig"]) as rig, pytest.raises(RigError, match="unknown input 'bet8'"):
            rig.set("bet8", 1)
        capsys.readouterr()
        assert uthctl(["rig", "--sim", addresses["rig"], "lock", "--hold", "50"]) == 0
        assert capsys.readouterr().out == "LOCK pressed and released (held 50 ms)\n"
        assert uthctl(["rig", "--sim", addresses["rig"], "power", "off"]) == 0
        assert capsys.readouterr().out == "power off\n"
        assert uthctl(["rig", "--sim", addresses["rig"], "state", "--json"]) == 0
        state = json.loads(capsys.readouterr().out)
        assert not state["powered"] and not state["board"]
        assert uthctl(["rig", "--sim", addresses["rig"], "reset"]) == 0
        with Link(addresses["serial"]) as link:
            link.wait_ready()
        interpreters += _children(proc.pid)

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert not any(_alive(pid) for pid in interpreters)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        proc.stdout.close()
        proc.stderr.close()


def test_vboard_sim_without_headless_points_to_it(capsys):
    assert uthctl(["sim"]) == 2
    assert "--headless" in capsys.readouterr().err


def test_a_bare_board_needs_headless(capsys):
    # Without firmware there is no table to show: refused with one clear line.
    assert uthctl(["sim", "--bare"]) == 2
    assert "--bare needs --headless" in capsys.readouterr().err
