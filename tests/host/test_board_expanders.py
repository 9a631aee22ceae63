# Both betting spots and both lights of seven seats through the boards'
# MCP23017s: on the virtual board (its expander models) and on the emulated
# Pico (the models behind rp2040js's I2C1), the firmware's own driver reads
# and writes them. 653b.1(a) and (c)(1): a seat with a progressive chip and
# no UTH chip does not qualify. A bus that stops answering, and an expander
# missing at power-on, put the table in fault with the expander's address.
import contextlib
import random
import re

import pytest
from independent_draws import seeded_draws

from uthctl.boards.max7219_model import reading
from uthctl.links.rig import RigError, lit

A1_CONTRIBUTION = 20_000  # 653b.1(c)(4) A1: 2% of a $1 chip, in micro-dollars
SEATS = range(1, 8)
NO_UTH = (3, 6)  # one seat on each expander
# The errno is the port's: EIO (5) for a NACK on the unix port's models; the
# rp2 port's I2C reports the emulated NACK as ETIMEDOUT (110).
OS_ERROR = r" \(OSError (5|110)\)$"


def _high_seed():
    # A seed whose first A1 hit value ($100-$200) lies above $101: 28 chips
    # (2 cents each) never reach it, so no round hits.
    return next(seed for seed in range(1, 10_000)
                if seeded_draws(seed, 10_000, 20_000, 1)[0][0] > 10_100)


@pytest.fixture
def table(tmp_path, target, request):
    seed = getattr(request, "param", None)
    with contextlib.ExitStack() as stack:
        board = target.board(tmp_path / "flash.img", seed=seed)
        stack.callback(board.stop)
        link = stack.enter_context(target.link(board.serial_path, timeout=10.0))
        rig = stack.enter_context(target.rig(board.rig_address))
        yield board, link, rig


def _configure(rig, link):
    rig.key(True)
    rig.wait_for(lambda s: reading(s["display"]) == reading("SErvICE"), what="service mode")
    assert link.command("config", mystery="A1")["ok"]
    rig.key(False)
    link.wait_event("reset")


def _restart(board, link, rig, target):
    boots = rig.state()["boots"]
    rig.reset()
    rig.wait_for(lambda s: s["boots"] == boots + 1, what="the restart")
    return board.wait_started(target.wait(60.0))


@pytest.mark.pico_quick
def test_seven_seats_qualify_only_with_both_chips_and_a_bus_fault_stops_play(table, target):
    board, link, rig = table
    link.wait_ready()
    _configure(rig, link)
    for seat in NO_UTH:
        rig.uth(seat, False)
    for seat in SEATS:
        rig.chip(seat, True)
    # Every progressive chip is seen and lit, the ones without a UTH chip too.
    rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), what="seven bet lights")
    rig.press_lock()
    link.wait_event("locked")
    qualifying = [seat for seat in SEATS if seat not in NO_UTH]
    contributions = [link.wait_event("contribution") for _ in qualifying]
    assert [(e["seat"], e["amount"]) for e in contributions] == [
        (seat, A1_CONTRIBUTION) for seat in qualifying]
    status = link.command("status")
    assert status["locked_in"] == qualifying and status["qualify"] == "both_spots"
    rig.wait_for(lambda s: lit(s["bet_lights"]) == qualifying, what="locked-in lights")

    with pytest.raises(RigError, match=r"address is one of \[32, 33\]"):
        rig.i2c_fault(True, 0x27)  # no expander there to take off the bus
    assert rig.i2c_fault(True)["ok"]
    reason = link.wait_event("fault")["reason"]
    assert re.match("I2C expander 0x20: bus error reading the spots" + OS_ERROR, reason), reason
    status = link.command("status")
    assert (status["state"], status["fault"]) == ("fault", reason)

    # Seats 5-7's expander off the bus at power-on: a fault naming it, not empty seats.
    rig.i2c_fault(False)
    rig.i2c_fault(True, 0x21)
    came = _restart(board, link, rig, target)
    assert came["state"] == "fault", came
    assert re.match("I2C expander 0x21: no answer" + OS_ERROR, came["fault"]), came
    rig.i2c_fault(False, 0x21)
    assert _restart(board, link, rig, target) == {"state": "betting", "fault": None}


@pytest.mark.parametrize("table", [_high_seed()], indirect=True)
def test_rounds_of_one_to_seven_seats_count_only_seats_with_both_chips(table):
    board, link, rig = table
    link.wait_ready()
    _configure(rig, link)
    rng = random.Random(10)
    charged = 0
    for count in range(1, 8):
        seats = sorted(rng.sample(SEATS, count))
        lacking = set(rng.sample(seats, rng.randint(0, count - 1)))  # at least one qualifies
        for seat in SEATS:
            rig.uth(seat, seat not in lacking)
        for seat in seats:
            rig.chip(seat, True)
        rig.wait_for(lambda s, seats=seats: lit(s["bet_lights"]) == seats, what="bet lights")
        rig.press_lock()
        link.wait_event("locked")
        qualifying = [seat for seat in seats if seat not in lacking]
        contributions = [link.wait_event("contribution") for _ in qualifying]
        assert [(e["seat"], e["amount"]) for e in contributions] == [
            (seat, A1_CONTRIBUTION) for seat in qualifying], (seats, lacking)
        assert link.command("status")["locked_in"] == qualifying
        charged += len(qualifying)
        for seat in seats:
            rig.chip(seat, False)
        rig.wait_for(lambda s: lit(s["bet_lights"]) == [], what="the round to end")
    assert link.command("meters")["meters"]["contributed"] == A1_CONTRIBUTION * charged
