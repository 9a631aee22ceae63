# The table's scenarios on a bench (bench.py), as a test lab runs them on a
# real controller with a rig Pico: `pytest tests/hil --target real --port
# /dev/ttyACM0 --rig /dev/ttyACM1` (docs/testing.md, "The scenario suite on real
# hardware"). The same steps run on the virtual board, the emulated Pico and
# the emulated pair. Each test starts from a fresh controller: no meters, and
# the TEST-ONLY seeded random source where the test foresees a hit value.
import json

import pytest
from build_identity import VERSION, sources_hash
from independent_draws import commitment
from steps import (
    A1_CENTS_PER_SEAT,
    A1_MINIMUM_CENTS,
    MICROS_PER_CENT,
    chips_on,
    configure,
    draws,
    identity_holds,
    lock_and_count,
    play_round,
    seed_with_first_value,
    seed_without_hit,
    validate,
    wait_state,
)

from uthctl.cli import main as uthctl
from uthctl.links.rig import lit

CONTROLLER_BOARDS = ("rp2040_pico", "esp32_devkitc")


def money(cents):
    return "%d.%02d" % divmod(cents, 100)


def test_the_controller_runs_this_checkouts_build(bench):
    bench.fresh()
    status = bench.link.command("status")
    assert (status["state"], status["fault"]) == ("unconfigured", None)
    assert status["version"] == VERSION
    if bench.name == "sim":  # the virtual board runs this checkout's sim build
        assert status["build"] == sources_hash("sim")
    else:  # `make deploy` of this checkout, for the board it was built for
        assert status["build"] in {sources_hash(board) for board in CONTROLLER_BOARDS}


def test_a_configuration_is_chosen_only_in_service_mode(bench):
    seed = seed_without_hit(0)
    bench.fresh(seed)
    refused = bench.link.command("config", mystery="A1")
    assert not refused["ok"] and "service mode" in refused["error"]
    assert bench.link.command("status")["state"] == "unconfigured"
    reset = configure(bench, "A1")
    value, salt = draws(seed, 1)[0]
    assert reset["meter"] == A1_MINIMUM_CENTS * MICROS_PER_CENT
    assert reset["commitment"] == commitment(value, salt)
    wait_state(bench, "betting")


def test_each_seats_bet_light_follows_its_chip(bench):
    bench.fresh(seed_without_hit(100))
    configure(bench)
    seats = list(range(1, len(bench.rig.state()["bet_lights"]) + 1))
    assert len(seats) >= 6
    for seat in seats:
        chips_on(bench, [seat])
        bench.rig.chip(seat, False)
        bench.rig.wait_for(lambda s: lit(s["bet_lights"]) == [], what="seat %d's light off" % seat)
    state = chips_on(bench, seats)
    assert not any(state["jackpot_lights"])
    # What the controller says it drives is what the rig reads on its wires.
    assert bench.link.command("status")["lights"] == {"bet": seats, "jackpot": []}


def test_lock_takes_the_seats_with_chips_and_no_chip_placed_after(bench):
    bench.fresh(seed_without_hit(5))
    configure(bench)
    chips_on(bench, [1, 3, 5])
    bench.rig.press_lock(bench.press_ms)
    locked = bench.link.wait_event("locked")
    meter_cents = A1_MINIMUM_CENTS + 3 * A1_CENTS_PER_SEAT
    assert (locked["round"], locked["meter"]) == (1, meter_cents * MICROS_PER_CENT)
    contributions = [bench.link.wait_event("contribution") for _ in range(3)]
    assert [(c["seat"], c["wager"], c["amount"]) for c in contributions] == [
        (seat, 100, A1_CENTS_PER_SEAT * MICROS_PER_CENT) for seat in (1, 3, 5)]

    bench.rig.chip(2, True)  # too late for this round: betting is locked out
    status = bench.link.command("status")
    assert (status["state"], status["locked_in"]) == ("locked", [1, 3, 5])
    assert lit(bench.rig.state()["bet_lights"]) == [1, 3, 5]
    for seat in (1, 2, 3, 5):
        bench.rig.chip(seat, False)
    bench.rig.wait_for(lambda s: lit(s["bet_lights"]) == [], what="the round to end")

    locked, _ = play_round(bench, [2, 4])
    meter_cents += 2 * A1_CENTS_PER_SEAT
    assert (locked["round"], locked["meter"]) == (2, meter_cents * MICROS_PER_CENT)
    meters = bench.link.command("meters")["meters"]
    assert meters["contributed"] == 5 * A1_CENTS_PER_SEAT * MICROS_PER_CENT
    assert identity_holds(meters)


def test_a_seat_qualifies_only_with_both_wagers(bench):
    # 653b.1(a), (c)(1): a player qualifies by placing both the Ultimate Texas
    # Hold 'Em wager and the progressive payout wager. Seat 3's progressive
    # chip has no UTH chip beside it; seat 7's has (the UTH chips start placed).
    bench.fresh(seed_without_hit(2))
    configure(bench)
    assert len(bench.rig.state()["bet_lights"]) == 7
    bench.rig.uth(3, False)
    chips_on(bench, [3, 7])  # both progressive chips seen, while betting is open
    locked, contributions = lock_and_count(bench, [7])
    meter_cents = A1_MINIMUM_CENTS + A1_CENTS_PER_SEAT  # seat 7's contribution alone
    assert locked["meter"] == meter_cents * MICROS_PER_CENT
    assert [(c["seat"], c["wager"], c["amount"]) for c in contributions] == [
        (7, 100, A1_CENTS_PER_SEAT * MICROS_PER_CENT)]
    status = bench.link.command("status")
    assert (status["state"], status["locked_in"]) == ("locked", [7])
    # Seat 3's bet light goes out at LOCK: the dealer sees it does not count.
    bench.rig.wait_for(lambda s: lit(s["bet_lights"]) == [7], what="seat 7's light alone")
    assert bench.link.command("status")["lights"]["bet"] == [7]
    assert bench.link.command("meters")["meters"]["contributed"] == (
        A1_CENTS_PER_SEAT * MICROS_PER_CENT)
    for seat in (3, 7):
        bench.rig.chip(seat, False)
    bench.rig.uth(3, True)
    bench.rig.wait_for(lambda s: lit(s["bet_lights"]) == [], what="the round to end")


def test_a_hit_lights_the_winning_seat_and_the_key_validates_it(bench):
    seats = (1, 2, 4, 5)
    seed = seed_with_first_value(
        A1_MINIMUM_CENTS, A1_MINIMUM_CENTS + 2 * len(seats) * A1_CENTS_PER_SEAT - 1)
    (value, salt), (next_value, next_salt) = draws(seed, 2)
    # The hit comes with the contribution that takes the meter above the value.
    hit_index = (value - A1_MINIMUM_CENTS) // A1_CENTS_PER_SEAT  # 0-based seat-round
    hit_round, hit_seat = hit_index // len(seats) + 1, seats[hit_index % len(seats)]
    award_cents = A1_MINIMUM_CENTS + (hit_index + 1) * A1_CENTS_PER_SEAT
    carried_cents = (len(seats) - 1 - hit_index % len(seats)) * A1_CENTS_PER_SEAT

    bench.fresh(seed)
    configure(bench)
    for _ in range(hit_round):
        play_round(bench, seats)
    hit = bench.link.wait_event("hit")
    assert (hit["seat"], hit["round"], hit["award"]) == (
        hit_seat, hit_round, award_cents * MICROS_PER_CENT)
    assert (hit["hit_value"], hit["salt"]) == (value * MICROS_PER_CENT, salt)
    state = bench.rig.wait_for(lambda s: any(s["jackpot_lights"]), what="the jackpot light")
    assert lit(state["jackpot_lights"]) == [hit_seat]
    status = bench.link.command("status")
    assert (status["state"], status["display"]) == ("hit_pending", money(award_cents))
    assert status["lights"]["jackpot"] == [hit_seat]

    validated, paid, reset = validate(bench)
    assert validated["award"] == award_cents * MICROS_PER_CENT
    assert paid["payment"] == "table_inventory"
    assert (reset["cycle"], reset["commitment"]) == (2, commitment(next_value, next_salt))
    bench.rig.wait_for(lambda s: not any(s["jackpot_lights"]) and not any(s["bet_lights"]),
                       what="the jackpot light off and betting again")
    meters = bench.link.command("meters")["meters"]
    assert meters["meter"] == (A1_MINIMUM_CENTS + carried_cents) * MICROS_PER_CENT
    assert (meters["paid"], meters["hits"]) == (award_cents * MICROS_PER_CENT, 1)
    assert identity_holds(meters)


def kept(meters):
    return {name: meters[name] for name in
            ("meter", "seeded", "contributed", "paid", "hits", "cycle", "round", "config")}


def test_the_meters_survive_a_reset_through_run(bench):
    bench.fresh(seed_without_hit(12))
    configure(bench)
    for seats in ((1, 2, 3), (4, 5, 6)):
        play_round(bench, seats)
    before = bench.link.command("meters")["meters"]
    commitment_before = bench.link.command("status")["commitment"]
    bench.restart()
    wait_state(bench, "betting", 30.0)
    after = bench.link.command("meters")["meters"]
    assert kept(after) == kept(before)
    assert after["contributed"] == 6 * A1_CENTS_PER_SEAT * MICROS_PER_CENT
    assert bench.link.command("status")["commitment"] == commitment_before
    locked, _ = play_round(bench, [6])
    assert locked["round"] == 3  # play goes on where it stopped


def test_the_meters_survive_a_power_cycle(bench):
    bench.fresh(seed_without_hit(12))
    if not bench.has_power_switch():
        pytest.skip("the rig has no load switch wired (boards/rig_pico/board.py)")
    configure(bench)
    play_round(bench, [1, 2, 3, 4, 5, 6])
    before = bench.link.command("meters")["meters"]
    bench.power_cycle()
    wait_state(bench, "betting", 30.0)
    assert kept(bench.link.command("meters")["meters"]) == kept(before)


def test_an_audit_over_the_controllers_port_verifies(bench, capsys):
    seats = (1, 2, 3, 4, 5, 6)
    seed = seed_with_first_value(A1_MINIMUM_CENTS, A1_MINIMUM_CENTS + 11)  # in round 1
    bench.fresh(seed)
    configure(bench)
    play_round(bench, seats)
    bench.link.wait_event("hit")
    validate(bench)
    play_round(bench, seats[:2])
    bench.close_link()  # the port to uthctl, one program at a time
    capsys.readouterr()
    assert uthctl(["audit", "--port", bench.port, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"], report["failures"]
    assert report["log"]["from_genesis"]
    meters = report["meters"]
    assert (meters["hits"], meters["contributed"]) == (
        1, 8 * A1_CENTS_PER_SEAT * MICROS_PER_CENT)
    assert identity_holds(meters)
