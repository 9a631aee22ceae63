# A dealer's and a floorperson's steps at the table, through a bench's rig,
# checked through the controller's host link and the lights as the rig reads
# them: nothing here asks a board the host runs for its insides.
#
# Figures come from 653b.1(c)(4) as typed here (A1: $1 minimum wager at 2%,
# $100-$200), and hit values from the TEST-ONLY seeded random source as
# independent_draws.py computes it, without the firmware's code.
import time

from independent_draws import seeded_draws

from uthctl.links.board_link import LinkError
from uthctl.links.rig import RigError, lit

A1_MINIMUM_CENTS = 100 * 100
A1_MAXIMUM_CENTS = 200 * 100
A1_CENTS_PER_SEAT = 100 * 2 // 100  # a $1 chip at 2%
MICROS_PER_CENT = 10_000


def draws(seed, count):
    return seeded_draws(seed, A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS, count)


def seed_with_first_value(low_cents, high_cents):
    # The first seed whose first A1 hit value lies in [low, high] cents.
    for seed in range(1, 200_000):
        if low_cents <= draws(seed, 1)[0][0] <= high_cents:
            return seed
    raise AssertionError("no seed found")


def seed_without_hit(seat_rounds):
    # A seed whose first hit needs more than `seat_rounds` $1 chips.
    return seed_with_first_value(A1_MINIMUM_CENTS + seat_rounds * A1_CENTS_PER_SEAT + 100,
                                 A1_MAXIMUM_CENTS)


def wait_state(bench, state, timeout=10.0):
    # The controller's state, asked over its link until it is `state`.
    deadline = time.monotonic() + bench.wait(timeout)
    while True:
        now = bench.link.command("status")["state"]
        if now == state:
            return
        assert time.monotonic() < deadline, "the controller stayed %s, not %s" % (now, state)
        time.sleep(0.05)


def configure(bench, name="A1"):
    # The key held (service mode), the configuration chosen, the key released.
    bench.rig.key(True)
    wait_state(bench, "service")
    reply = bench.link.command("config", mystery=name)
    assert reply["ok"], reply
    bench.rig.key(False)
    return bench.link.wait_event("reset")


def chips_on(bench, seats):
    for seat in seats:
        bench.rig.chip(seat, True)
    try:
        return bench.rig.wait_for(lambda s: lit(s["bet_lights"]) == sorted(seats),
                                  what="the bet lights of seats %s" % sorted(seats))
    except RigError as error:  # what the controller says of itself, beside the rig's view
        raise AssertionError("%s; the controller's status: %s; the bench: %s"
                             % (error, bench.link.command("status"),
                                bench.trouble() or "no trouble known")) from None


def lock_and_count(bench, seats):
    # LOCK pressed: the `locked` event and one `contribution` for each of
    # `seats` (the seats expected to qualify), in seat order.
    bench.rig.press_lock(bench.press_ms)
    locked = bench.link.wait_event("locked")
    return locked, [bench.link.wait_event("contribution") for _ in seats]


def play_round(bench, seats):
    # Chips on, LOCK, chips off; the `locked` event and the contributions.
    wait_state(bench, "betting")  # a validated hit's round may still be closing
    chips_on(bench, seats)
    locked, contributions = lock_and_count(bench, seats)
    for seat in seats:
        bench.rig.chip(seat, False)
    # The round ends once the spots are clear (the bet lights go out), or
    # stays on a hit until the key is turned (a jackpot light is on).
    bench.rig.wait_for(lambda s: lit(s["bet_lights"]) == [] or any(s["jackpot_lights"]),
                       what="the round to end")
    return locked, contributions


def validate(bench):
    # The floorperson turns the key on a pending hit: validated, paid, reset.
    bench.rig.turn_key(bench.press_ms)
    try:
        return [bench.link.wait_event(name) for name in ("validated", "paid", "reset")]
    except LinkError as error:
        raise AssertionError("%s; the controller's status: %s; events kept: %s; the bench: %s"
                             % (error, bench.link.command("status"), bench.link.events,
                                bench.trouble() or "no trouble known")) from None


def identity_holds(meters):
    return meters["seeded"] + meters["contributed"] == meters["paid"] + meters["meter"]
