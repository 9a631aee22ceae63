# Two emulated Picos wired pin to pin (pico_pair.py): the rig firmware
# (boards/rig_pico) on one, deployed by `make deploy BOARD=rig_pico`; the
# controller deployed on the other (with the TEST-ONLY seeded /boot.py, so
# the hit value is foreseen by independent_draws.py). The host drives only
# the rig Pico, over its serial pty, as it would drive /dev/ttyACM1; it sees
# the lights only as the rig Pico reads them, and the controller's events on
# its own pty, as on /dev/ttyACM0. A configuration, rounds to a hit, the
# jackpot light on the winning seat, the key validating it.
#
# Expected figures from 653b.1(c)(4) as test_pico_board.py types them (A1:
# $1 minimum wager at 2%, $100-$200). Minutes on 2 cores (two emulators and
# two deploys): marked pico, outside `make test`; `make test-pico` runs it.
import contextlib
import shutil
import time

import pytest
from independent_draws import commitment, seeded_draws
from pico_pair import PinBridge
from rig_pico_target import BOOT_WAIT, deploy_rig, rig_board

from uthctl.boards import pico_image
from uthctl.links.board_link import Link
from uthctl.links.rig import Rig, lit

WHY_NOT = pico_image.unavailable(pico_image.PROJECT, pico_image.OFFICIAL)
pytestmark = [pytest.mark.skipif(WHY_NOT is not None, reason="emulated Pico: %s" % WHY_NOT),
              pytest.mark.board, pytest.mark.pico, pytest.mark.slow]

if WHY_NOT is None:
    from uthctl.boards.pico import PicoBoard

A1_MINIMUM_CENTS = 100 * 100
A1_MAXIMUM_CENTS = 200 * 100
A1_CENTS_PER_SEAT = 100 * 2 // 100  # a $1 chip at 2%
MICROS_PER_CENT = 10_000
SEATS = (2, 5)
WAIT = 60.0  # two emulators on a loaded 2-core host
HOLD_MS = 300  # a dealer's press: crosses the bridge whole, well short of LOCK's 2 s hold


def first_seed_with_hit_within(rounds):
    last = A1_MINIMUM_CENTS + rounds * len(SEATS) * A1_CENTS_PER_SEAT - 1
    for seed in range(1, 200_000):
        if seeded_draws(seed, A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS, 1)[0][0] <= last:
            return seed
    raise AssertionError("no seed found")


SEED = first_seed_with_hit_within(2)


@pytest.fixture(scope="module")
def rig_flash(tmp_path_factory):
    flash = tmp_path_factory.mktemp("rig-pico") / "flash.img"
    with rig_board(flash) as board:
        assert board.wait_started(BOOT_WAIT)["state"] == "repl"  # a bare image
        deploy_rig(board)
    return flash


@pytest.fixture
def pair(tmp_path, rig_flash, pico_images):
    rig_copy, controller_flash = tmp_path / "rig.img", tmp_path / "controller.img"
    shutil.copyfile(rig_flash, rig_copy)
    pico_images.copy_to(SEED, controller_flash)
    with contextlib.ExitStack() as stack:
        rig_pico = stack.enter_context(rig_board(rig_copy))
        controller = stack.enter_context(PicoBoard(flash=controller_flash))
        bridge = stack.enter_context(PinBridge(rig_pico, controller))
        assert controller.wait_started(BOOT_WAIT)["state"] == "unconfigured"
        link = stack.enter_context(Link(controller.serial_path, timeout=WAIT))
        rig = stack.enter_context(Rig(port=rig_pico.serial_path, timeout=WAIT))
        yield rig, link, bridge


def wait_state(link, state):
    # The controller's state, asked over its own link until it is `state`.
    deadline = time.monotonic() + WAIT
    while link.command("status")["state"] != state:
        assert time.monotonic() < deadline, "the controller never reached %s" % state
        time.sleep(0.05)


def test_a_round_to_a_hit_played_through_the_rig_pico(pair):
    rig, link, bridge = pair
    (value, salt), _ = seeded_draws(SEED, A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS, 2)
    hit_index = (value - A1_MINIMUM_CENTS) // A1_CENTS_PER_SEAT  # 0-based seat-round
    hit_round, hit_seat = hit_index // len(SEATS) + 1, SEATS[hit_index % len(SEATS)]
    award_cents = A1_MINIMUM_CENTS + (hit_index + 1) * A1_CENTS_PER_SEAT
    link.wait_ready(WAIT)

    rig.key(True)  # held through the rig: service mode
    wait_state(link, "service")
    assert link.command("config", mystery="A1")["ok"]
    rig.key(False)
    assert link.wait_event("reset")["commitment"] == commitment(value, salt)

    for number in range(1, hit_round + 1):
        for seat in SEATS:
            rig.chip(seat, True)
        rig.wait_for(lambda s: lit(s["bet_lights"]) == list(SEATS), WAIT,
                     what="the bet lights, as the rig Pico reads them")
        rig.press_lock(HOLD_MS)
        assert link.wait_event("locked")["round"] == number
        assert [(c["seat"], c["amount"]) for c in
                (link.wait_event("contribution") for _ in SEATS)] == [
            (seat, A1_CENTS_PER_SEAT * MICROS_PER_CENT) for seat in SEATS]
        for seat in SEATS:
            rig.chip(seat, False)
        rig.wait_for(lambda s: lit(s["bet_lights"]) == [] or any(s["jackpot_lights"]), WAIT,
                     what="the round to end")
    hit = link.wait_event("hit")
    assert (hit["seat"], hit["round"], hit["award"]) == (
        hit_seat, hit_round, award_cents * MICROS_PER_CENT)
    state = rig.wait_for(lambda s: any(s["jackpot_lights"]), WAIT, what="the jackpot light")
    assert lit(state["jackpot_lights"]) == [hit_seat]

    rig.turn_key(HOLD_MS)  # the floorperson validates, through the rig
    assert link.wait_event("validated")["award"] == award_cents * MICROS_PER_CENT
    rig.wait_for(lambda s: not any(s["jackpot_lights"]), WAIT, what="the jackpot light off")
    assert bridge.error is None and bridge.crossed > 0
