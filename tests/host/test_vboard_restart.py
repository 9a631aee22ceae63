# A restart in the middle of a round on the virtual board: chips on seats
# 1-3, LOCK, then the power is cut and restored (the rig's power off / on;
# the chips stay on their spots, as on a table), or the reset button. The
# next LOCK must not charge those chips again; they count once lifted and
# placed again, and their bet lights blink meanwhile (docs/controller.md,
# "Chips on the spots at a restart").
#
# Expected amounts from 653b.1(c)(4) as typed here: A1 takes 2% of a $1
# chip, 20,000 micro-dollars a seat, from a $100 reset. The board's TEST-ONLY
# seeded random source is given a seed whose hit value is far above what
# these rounds reach (independent_draws.py), so no round hits.
import contextlib
import time

import pytest
from independent_draws import seeded_draws

from uthctl.boards.max7219_model import reading
from uthctl.links.rig import lit

A1_SEAT = 20_000
A1_RESET = 100 * 1_000_000
SEATS = (1, 2, 3)

pytestmark = pytest.mark.usefixtures("micropython")


def _quiet_seed():
    # A seed whose first A1 hit value is $110 or more: ten dollars of rounds away.
    for seed in range(1, 10_000):
        if seeded_draws(seed, 10_000, 20_000, 1)[0][0] >= 11_000:
            return seed
    raise AssertionError("no seed found")


class Table:
    def __init__(self, stack, flash, target):
        self.target = target
        self.vb = target.board(flash, seed=_quiet_seed(), power=False)
        stack.callback(self.vb.stop)
        self.vb.power(True)
        self.link = stack.enter_context(target.link(self.vb.serial_path, timeout=10.0))
        self.rig = stack.enter_context(target.rig(self.vb.rig_address))

    def configure(self):
        self.link.wait_ready()
        self.rig.key(True)
        self.rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"),
                          what="service mode")
        assert self.link.command("config", mystery="A1")["ok"]
        self.rig.key(False)
        self.link.wait_event("reset")

    def lock(self, charged):
        # LOCK; returns the round; `charged`: the seats whose contribution must come.
        self.link.events.clear()
        self.rig.press_lock()
        locked = self.link.wait_event("locked")
        meters = self.link.command("meters")["meters"]  # after the round's events
        got = [e["seat"] for e in self.link.events if e["ev"] == "contribution"
               and e["round"] == locked["round"]]
        assert got == list(charged), (locked, self.link.events)
        assert meters["round"] == locked["round"]
        return meters

    def wait_state(self, state, timeout=10.0):
        deadline = time.monotonic() + self.target.wait(timeout)
        while True:
            status = self.link.command("status")
            if status["state"] == state:
                return status
            assert time.monotonic() < deadline, "the board stayed %s" % status
            time.sleep(0.02)

    def play_then_restart(self, restart):
        self.configure()
        for seat in SEATS:
            self.rig.chip(seat, True)
        self.rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), what="bet lights")
        meters = self.lock(charged=SEATS)
        assert meters["contributed"] == 3 * A1_SEAT
        boots = self.rig.state()["boots"]
        booted = restart()
        self.link.wait_ready(timeout=20.0)
        assert self.rig.state()["boots"] == boots + booted  # the interpreter started again

    def after_restart(self):
        status = self.wait_state("betting")
        assert status["stale_chips"] == list(SEATS), status
        # The stale chips' lights blink together; the empty seats' stay dark.
        for level in (0, 1, 0, 1):
            lights = list(SEATS) if level else []
            self.rig.wait_for(lambda s, lights=lights: lit(s["bet_lights"]) == lights,
                              timeout=10.0, what="the bet lights blinking")
        meters = self.lock(charged=())  # the same chips, locked again: nothing charged
        assert meters["contributed"] == 3 * A1_SEAT
        assert meters["meter"] == A1_RESET + 3 * A1_SEAT
        for seat in SEATS:  # the round is settled: the chips are taken, then new ones placed
            self.rig.chip(seat, False)
        self.wait_state("betting")
        assert self.link.command("status")["stale_chips"] == []
        for seat in SEATS:
            self.rig.chip(seat, True)
        self.rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), what="steady lights")
        meters = self.lock(charged=SEATS)
        assert meters["contributed"] == 6 * A1_SEAT
        assert meters["seeded"] + meters["contributed"] == meters["paid"] + meters["meter"]


@pytest.fixture
def table(tmp_path, target):
    with contextlib.ExitStack() as stack:
        yield Table(stack, tmp_path / "flash.img", target)


# Each restart returns the boots the rig counts for it.
def _power_cut(table):
    table.rig.power(False)  # the rig keeps the chips on the spots
    table.rig.power(True)
    return 1


def _hard_reset(table):
    table.rig.reset()  # the reset button: power off, then on
    return 1


# (A soft reset mid-round, as a technician's Ctrl-C and Ctrl-D once made it,
# no longer happens: no byte stops the controller, and the REPL opens only in
# service mode, which waits for the round's end; docs/host-link.md.)


@pytest.mark.parametrize("restart", [_power_cut, _hard_reset], ids=["power", "reset"])
@pytest.mark.pico_quick
def test_vboard_restart_after_lock_charges_the_chips_once(table, restart):
    table.play_then_restart(lambda: restart(table))
    assert [table.rig.state()["inputs"]["bet%d" % seat] for seat in SEATS] == [1, 1, 1]
    table.after_restart()
