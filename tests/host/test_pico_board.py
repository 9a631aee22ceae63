# The emulated Pico end to end on the .mpy path: the official MicroPython rp2
# image on an emulated RP2040 (host_tools/pico_emu, uthctl/boards/pico.py),
# the project deployed to it by `make deploy` through mpremote, then driven
# through the rig as the virtual board is (test_vboard.py). The scenario
# tests (--target pico) run on the project's own image. Skipped, with the reason in
# one line, where node 18, `make setup`'s rp2040js or the image is missing.
#
# Expected figures come from 653b.1(c)(4) as typed in test_vboard.py (A1: $1
# minimum wager, 2%, $100-$200); the hit value comes quickly because a
# TEST-ONLY /boot.py (pico_seeded_boot.py, put there by pico_target.deploy)
# swaps the controller's random source for the seeded stream
# independent_draws.py computes on its own.
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from independent_draws import commitment, seeded_draws
from pico_target import deploy

from uthctl.boards import pico_image
from uthctl.boards.max7219_model import reading
from uthctl.links.board_link import Link
from uthctl.links.rig import Rig, lit

WHY_NOT = pico_image.unavailable(pico_image.OFFICIAL)
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason="emulated Pico: %s" % WHY_NOT),
              pytest.mark.board]

if WHY_NOT is None:
    from uthctl.boards.pico import PicoBoard

A1_MINIMUM_CENTS = 100 * 100
A1_MAXIMUM_CENTS = 200 * 100
A1_CENTS_PER_SEAT = 100 * 2 // 100  # a $1 chip at 2%
MICROS_PER_CENT = 10_000
OFFICIAL = pico_image.OFFICIAL
LINK_TIMEOUT = 30.0  # the emulator runs at about half the chip's speed, on a loaded host
BOOT_WAIT = 60.0
DISPLAY_WAIT = 12.0  # the meter shows 4 s, then "hit bY" and the maximum 3.5 s


def first_seed_with_hit_in(low_cents, high_cents):
    for seed in range(1, 200_000):
        if low_cents <= seeded_draws(seed, A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS, 1)[0][0] \
                <= high_cents:
            return seed
    raise AssertionError("no seed found")


SEATS = (1, 3, 6)
# A hit within two three-seat rounds.
SEED = first_seed_with_hit_in(A1_MINIMUM_CENTS,
                              A1_MINIMUM_CENTS + 2 * len(SEATS) * A1_CENTS_PER_SEAT - 1)


def money(cents):
    return "%d.%02d" % divmod(cents, 100)


@pytest.fixture(scope="module")
def deployed_flash(tmp_path_factory):
    # A new flash given the project's build by `make deploy` (pico_target.py),
    # with the TEST-ONLY seeded boot.py.
    folder = tmp_path_factory.mktemp("pico")
    flash = folder / "flash.img"
    with PicoBoard(flash=flash, image=OFFICIAL) as board:
        assert board.wait_started(BOOT_WAIT)["state"] == "repl"  # a bare image
        assert oct(flash.stat().st_mode & 0o777) == "0o600"
        came = deploy(board, folder, seed=SEED)
        assert came == {"state": "unconfigured", "fault": None}
    return flash


@pytest.fixture
def table(tmp_path, deployed_flash):
    flash = tmp_path / "flash.img"
    shutil.copyfile(deployed_flash, flash)
    os.chmod(flash, 0o600)
    with contextlib.ExitStack() as stack:
        yield Table(flash, stack)


class Table:
    def __init__(self, flash, stack):
        self.flash = flash
        self.stack = stack

    def board(self, power=True):
        board = PicoBoard(flash=self.flash, image=OFFICIAL)
        self.stack.callback(board.stop)
        return board.start(power=power)

    def link(self, board):
        return self.stack.enter_context(Link(board.serial_path, timeout=LINK_TIMEOUT))

    def rig(self, board):
        return self.stack.enter_context(Rig(board.rig_address, timeout=LINK_TIMEOUT))


def configure(rig, link, name):
    rig.key(True)  # held: service mode
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), DISPLAY_WAIT,
                 what="service mode")
    reply = link.command("config", mystery=name)
    assert reply["ok"], reply
    rig.key(False)
    return link.wait_event("reset")


def play_round(rig, link, seats):
    for seat in seats:
        rig.chip(seat, True)
    rig.wait_for(lambda s: lit(s["bet_lights"]) == sorted(seats), DISPLAY_WAIT,
                 what="bet lights on")
    rig.press_lock()
    locked = link.wait_event("locked")
    contributions = [link.wait_event("contribution") for _ in seats]
    for seat in seats:
        rig.chip(seat, False)
    rig.wait_for(lambda s: lit(s["bet_lights"]) == [] or any(s["jackpot_lights"]),
                 DISPLAY_WAIT, what="the round to end")
    return locked, contributions


# ---- the project on the image: configure, rounds, a hit, validate, reset ----


def test_pico_deployed_image_plays_to_a_hit_validates_and_resets(table):
    (value, salt), (next_value, next_salt) = seeded_draws(SEED, A1_MINIMUM_CENTS,
                                                          A1_MAXIMUM_CENTS, 2)
    hit_index = (value - A1_MINIMUM_CENTS) // A1_CENTS_PER_SEAT  # 0-based seat-round
    hit_round, hit_seat = hit_index // len(SEATS) + 1, SEATS[hit_index % len(SEATS)]
    award_cents = A1_MINIMUM_CENTS + (hit_index + 1) * A1_CENTS_PER_SEAT
    carried_cents = (len(SEATS) - 1 - hit_index % len(SEATS)) * A1_CENTS_PER_SEAT

    board = table.board()
    link, rig = table.link(board), table.rig(board)
    link.wait_ready(LINK_TIMEOUT)
    # The start's program check over the deployed .mpy build, on the chip's
    # clock (printed for docs/benchmarks.md): SHA-256 in software over 80 KB
    # and more of files read from flash takes a Cortex-M0+ milliseconds.
    program = link.command("status")["program"]
    print("the Pico's program check at start: %s ms over the deployed build's files"
          % program["check_ms"])
    assert program["kind"] == "files" and program["check_ms"] >= 1, program
    assert rig.wait_for(lambda s: s["display"] == "no CFG", DISPLAY_WAIT,
                        what="no CFG on the MAX7219")["display_segments"][-6:] == [
        0x15, 0x1D, 0x00, 0x4E, 0x47, 0x5E]  # n o _ C F G: C|E|G, C|D|E|G, A|D|E|F, ...
    reset = configure(rig, link, "A1")
    assert reset["meter"] == A1_MINIMUM_CENTS * MICROS_PER_CENT
    assert reset["commitment"] == commitment(value, salt)
    # 653b.1(b) on the chip: "hit bY" (h: C|E|F|G, i: E, t: D|E|F|G, b: C|D|E|F|G,
    # Y: B|C|D|F|G), then the maximum, between turns of the meter.
    assert rig.wait_for(lambda s: s["display"] == "hit bY", 2 * DISPLAY_WAIT,
                        what="hit bY on the MAX7219")["display_segments"][-6:] == [
        0x17, 0x04, 0x0F, 0x00, 0x1F, 0x3B]
    rig.wait_for(lambda s: s["display"] == money(A1_MAXIMUM_CENTS), DISPLAY_WAIT,
                 what="the maximum after hit bY")

    for number in range(1, hit_round + 1):
        locked, contributions = play_round(rig, link, SEATS)
        assert locked["round"] == number
        assert [(c["seat"], c["amount"]) for c in contributions] == [
            (seat, A1_CENTS_PER_SEAT * MICROS_PER_CENT) for seat in SEATS]
    hit = link.wait_event("hit")
    assert (hit["seat"], hit["round"], hit["award"]) == (
        hit_seat, hit_round, award_cents * MICROS_PER_CENT)
    assert (hit["hit_value"], hit["salt"]) == (value * MICROS_PER_CENT, salt)
    state = rig.wait_for(lambda s: s["display"] == money(award_cents), DISPLAY_WAIT,
                         what="the award on the MAX7219")
    assert lit(state["jackpot_lights"]) == [hit_seat]

    rig.turn_key()  # the floorperson validates
    assert link.wait_event("validated")["award"] == award_cents * MICROS_PER_CENT
    assert link.wait_event("paid")["payment"] == "table_inventory"
    reset = link.wait_event("reset")
    assert (reset["cycle"], reset["commitment"]) == (2, commitment(next_value, next_salt))
    rig.wait_for(lambda s: not any(s["jackpot_lights"]) and not any(s["bet_lights"]),
                 DISPLAY_WAIT, what="jackpot light off and betting again")
    meters = link.command("meters")["meters"]
    assert meters["meter"] == (A1_MINIMUM_CENTS + carried_cents) * MICROS_PER_CENT
    assert (meters["hits"], meters["cycle"], meters["paid"]) == (
        1, 2, award_cents * MICROS_PER_CENT)
    rig.wait_for(lambda s: s["display"] == money(A1_MINIMUM_CENTS + carried_cents),
                 DISPLAY_WAIT, what="the new meter on the MAX7219")
    assert board.state()["flash_ops"]["program"] > 0

    # A power cycle keeps the meters: the flash file is the board's flash.
    link.close()
    rig.reset()
    link = table.link(board)
    assert board.wait_started(BOOT_WAIT)["state"] == "betting"
    assert link.command("meters")["meters"]["meter"] == meters["meter"]


# ---- the rig's pins: both spots of seven seats, LOCK and the key ----


def test_pico_rig_names_both_spots_of_seven_seats_and_refuses_others(table):
    board = table.board()
    rig = table.rig(board)
    with pytest.raises(OSError, match="unknown input 'uth8'"):
        rig.set("uth8", 1)
    assert sorted(rig.state()["inputs"]) == sorted(
        ["bet%d" % n for n in range(1, 8)] + ["uth%d" % n for n in range(1, 8)]
        + ["lock", "key", "door"])


AHEAD_ALLOWANCE_NS = 10_000_000  # 2 ms, and a slice of 200,000 instructions at most


def test_pico_rig_reads_the_chips_clock_which_keeps_wall_time(table):
    board = table.board()
    rig = table.rig(board)
    board.wait_started(BOOT_WAIT)
    # Realtime: the chip's clock runs on while idle and is never ahead of the
    # wall clock since its power-on, but for the emulator's allowance (2 ms,
    # and the slice of instructions it runs between looks). How far it falls
    # behind depends on the machine's load, and a chip behind catches up while
    # it idles, so that part is measured in `make bench`, never asserted here.
    first = rig.request(op="time")
    time.sleep(0.5)
    second = rig.request(op="time")
    wall_ns = (time.monotonic() - board.powered_at) * 1e9
    assert second["cycles"] > first["cycles"]
    assert 0 < second["emulated_ns"] - first["emulated_ns"]
    assert second["emulated_ns"] <= wall_ns + AHEAD_ALLOWANCE_NS
    rig.power(False)
    with pytest.raises(OSError, match="off"):
        rig.request(op="time")


# ---- power cuts: at the N-th flash operation, then a restart boots ----


def configure_cut_short(rig, link):
    # Service mode, then the configuration, whose writes the armed cut stops.
    rig.key(True)
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), DISPLAY_WAIT,
                 what="service mode")
    link.send({"cmd": "config", "mystery": "A1"})
    return rig.wait_for(lambda s: not s["powered"], BOOT_WAIT, what="the cut")


@pytest.mark.parametrize("mode", ["before", "partial"])
@pytest.mark.parametrize("which", ["first", "last"])
def test_pico_cut_at_a_flash_operation_then_restart_boots(table, mode, which):
    # Count the flash operations of a configuration on the image, then make
    # the same configuration again cut at its first or its last operation.
    board = table.board(power=False)
    rig, link = table.rig(board), table.link(board)
    rig.power(True)
    assert board.wait_started(BOOT_WAIT)["state"] == "unconfigured"
    rig.power(False)
    image = table.flash.read_bytes()
    rig.power(True)
    assert board.wait_started(BOOT_WAIT)["state"] == "unconfigured"
    booted = rig.state()["flash_ops"]
    # Counted with the key still held: its release writes service mode's
    # record, which the cut run (the key held throughout) never reaches.
    rig.key(True)
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), DISPLAY_WAIT,
                 what="service mode")
    assert link.command("config", mystery="A1")["ok"]
    ops = rig.state()["flash_ops"]
    rig.key(False)
    count = ops["erase"] + ops["program"]
    assert count > booted["erase"] + booted["program"]  # the configuration was written
    rig.power(False)
    assert table.flash.read_bytes() != image  # written through as it went

    table.flash.write_bytes(image)
    at = booted["erase"] + booted["program"] + 1 if which == "first" else count
    assert rig.request(op="cut", at=at, mode=mode)["armed"]
    rig.power(True)
    assert board.wait_started(BOOT_WAIT)["state"] == "unconfigured"
    cut = configure_cut_short(rig, link)
    assert cut["cut"]["at"] == at and cut["cut"]["mode"] == mode
    assert cut["flash_ops"]["erase"] + cut["flash_ops"]["program"] == at
    assert cut["pid"] is None

    rig.key(False)
    rig.power(True)  # armed for one power-on only
    came = board.wait_started(BOOT_WAIT)
    assert came["state"] in ("unconfigured", "betting"), came
    assert link.command("status")["ok"]
    assert rig.state()["cut"] is None


# ---- processes: nothing outlives a killed supervisor ----


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open("/proc/%d/stat" % pid) as stat:
        return stat.read().split(")")[-1].split()[0] != "Z"


def test_pico_headless_killed_leaves_no_emulator(tmp_path, deployed_flash):
    flash = tmp_path / "flash.img"
    shutil.copyfile(deployed_flash, flash)
    proc = subprocess.Popen([sys.executable, "-m", "uthctl.cli", "sim", "--board",
                             "rp2040_pico", "--image", "official", "--headless",
                             "--flash", str(flash)],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = json.loads(proc.stdout.readline())
        assert line["state"] == "unconfigured" and line["flash"] == str(flash)
        with Rig(line["rig"]) as rig:
            pid = rig.state()["pid"]
        assert _alive(pid)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the emulator outlived its supervisor"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


# ---- the interactive table on the emulated Pico ----


def test_pico_interactive_table_shows_the_max7219_and_quits_clean(tmp_path, deployed_flash):
    from test_tui import Terminal, children

    flash = tmp_path / "flash.img"
    shutil.copyfile(deployed_flash, flash)
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
    env.pop("NO_COLOR", None)
    term = Terminal([sys.executable, "-m", "uthctl.cli", "sim", "--board", "rp2040_pico",
                     "--image", "official", "--flash", str(flash)], env)
    try:
        term.wait_text('display "no CFG"', BOOT_WAIT)
        assert "emulated Pico: serial" in term.text()
        emulators = children(term.proc.pid)
        assert emulators
        term.keys("s")  # hold the key: service mode, as the MAX7219 lights it
        term.wait_text('display "5EruICE"', DISPLAY_WAIT)
        term.wait_text("state SERVICE", LINK_TIMEOUT)  # as the controller reports it
        term.keys("c")
        term.wait_text("choose a configuration, 653b", LINK_TIMEOUT)
        term.keys("A1\r")
        term.wait_text("config A1 (was none)", LINK_TIMEOUT)
        term.keys("s")
        term.wait_text("state BETTING", LINK_TIMEOUT)
        # Auto-play at six seats without UTH sensors: the seeded hit comes in its first round.
        term.keys("a")
        term.wait_text("state HIT PENDING", BOOT_WAIT)
        term.wait_text("auto-play: a hit after", LINK_TIMEOUT)
        term.wait_for(lambda t: "auto     off (a)" in term.row("auto "), LINK_TIMEOUT,
                      what="auto-play's hands off the pins (LOCK released)")
        term.keys("k")
        term.wait_text("the floorperson's employee number", LINK_TIMEOUT)
        term.keys("4417\r\r")  # no jackpot slip: paid from the table's inventory
        term.wait_text("validated seat", LINK_TIMEOUT)
        term.wait_text("by employee 4417, slip none", LINK_TIMEOUT)
        term.keys("q")
        assert term.proc.wait(20) == 0
        assert not any(_alive(pid) for pid in emulators)
    finally:
        term.close()


# ---- the flash image: the Pico's own size, one board at a time ----


def test_pico_flash_of_another_size_and_a_second_board_are_refused(tmp_path):
    from uthctl.boards.flash import FlashInUse

    other = tmp_path / "sim-flash.img"
    other.write_bytes(b"\xff" * 4096)
    with pytest.raises(OSError, match="not a Pico filesystem image"):
        PicoBoard(flash=other, image=OFFICIAL).start(power=False)
    flash = tmp_path / "pico.img"
    with PicoBoard(flash=flash, image=OFFICIAL):
        with pytest.raises(FlashInUse, match="in use by process %d" % os.getpid()):
            PicoBoard(flash=flash, image=OFFICIAL).start(power=False)
