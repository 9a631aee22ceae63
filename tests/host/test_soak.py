# uthctl soak: a short one on the virtual board with its faster clock, a hit
# forced by the board's TEST-ONLY seeded draws (independent_draws.py), and
# the host's record catching what a board might get wrong.
import json

import pytest
from independent_draws import seeded_draws

from uthctl.cli import main as uthctl
from uthctl.soak.record import HostRecord
from uthctl.soak.run import soak

A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS = 100_00, 200_00
MICROS_PER_CENT = 10_000
SEAT_MICROS = 2 * MICROS_PER_CENT  # 2% of a $1 chip, 653b.1(c)(4) A1


def seed_hitting_early():
    # A hit value of at most $100.03: two rounds of at least one chip pass it.
    for seed in range(1, 200_000):
        cents = seeded_draws(seed, A1_MINIMUM_CENTS, A1_MAXIMUM_CENTS, 1)[0][0]
        if cents <= A1_MINIMUM_CENTS + 3:
            return seed, cents
    raise AssertionError("no seed found")


@pytest.mark.board
def test_a_short_soak_on_the_virtual_board(tmp_path, capsys):
    seed, cents = seed_hitting_early()
    code = uthctl(["soak", "--rounds", "30", "--seed", "5", "--test-seed", str(seed),
                   "--export-every", "7", "--out", str(tmp_path), "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert code == 0 and figures["ok"] and figures["differences"] == []
    assert figures["rounds"] == 30 and figures["hits"] == 1
    assert figures["board"] == "sim" and figures["clock_rate"] == 30
    events = figures["events"]
    assert events["locked"] == 30 and events["hit"] == events["paid"] == 1
    # The first contribution past the hit value: the meter to the cent,
    # one cent above the value as every step is two cents.
    award = (cents + (2 if (cents - A1_MINIMUM_CENTS) % 2 == 0 else 1)) * MICROS_PER_CENT
    totals = figures["totals"]
    assert totals["paid"] == award and totals["hits"] == 1 and totals["cycle"] == 2
    assert totals["seeded"] == 2 * A1_MINIMUM_CENTS * MICROS_PER_CENT
    assert totals["contributed"] == events["contribution"] * SEAT_MICROS
    assert totals["meter"] == totals["seeded"] + totals["contributed"] - totals["paid"]
    # Exports every 7 rounds plus the last, joined into one log from record 1:
    # config, two resets, 30 rounds, hit, validated, paid; the two settings
    # the soak set (paytables, payout limit) and a settlement for each round
    # with a side wager, answered as the host settles it (no difference).
    lines = (tmp_path / "log.jsonl").read_text().splitlines()
    kinds = [json.loads(line)["ev"] for line in lines]
    assert kinds.count("setting") == 2 and kinds.count("settled") == figures["settled"]
    assert figures["settled"] > 25  # a round all of whose stakes are 0 is not sent
    assert figures["exports"] == 30 // 7 + 1
    # Service mode entered and left: left after the configuration and the
    # settings (the entry on a new board goes out alone), then in pairs
    # wherever the soak's key was still held at a round's end.
    service = kinds.count("service")
    assert service % 2 == 1 and kinds[:5] == ["config", "reset", "setting", "setting",
                                              "service"], kinds[:5]
    assert figures["records"] == 36 + 2 + figures["settled"] + service
    assert [json.loads(line)["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert figures["audit"]["ok"] and figures["audit"]["from_genesis"]
    assert json.loads((tmp_path / "soak.json").read_text()) == figures


@pytest.mark.board
def test_a_soak_names_a_seat_the_board_does_not_count(tmp_path):
    # Seat 3's UTH-spot sensor reads no wager, so its progressive chip does
    # not qualify (653b.1(c)(1)): the host, which placed it, says so.
    from uthctl.boards.virtual import VirtualBoard
    from uthctl.links.board_link import Link
    from uthctl.links.rig import Rig

    with VirtualBoard(flash=tmp_path / "flash.img", clock_rate=30) as board:
        board.wait_started(30.0)
        with Link(board.serial_path, timeout=10.0) as link, Rig(board.rig_address) as rig:
            link.wait_ready(30.0)
            rig.uth(3, False)
            figures = soak(link, rig, 12, 5, tmp_path / "out")
    wrong = [text for text in figures["differences"] if "qualifying seats" in text]
    assert not figures["ok"] and wrong and len(wrong) == len(figures["differences"])
    assert all("3" in text.split("the host's record")[1] for text in wrong)
    assert figures["audit"]["ok"]  # the board's own accounts still add up


@pytest.mark.target("pico")
def test_a_soak_on_the_target(target, tmp_path):
    seed, _ = seed_hitting_early()
    board = target.board(tmp_path / "flash.img", seed=seed)
    try:
        with target.link(board.serial_path) as link, target.rig(board.rig_address) as rig:
            link.wait_ready(30.0)
            figures = soak(link, rig, 8, 5, tmp_path / "out", export_every=3, poll=0.05,
                           stretch=target.stretch)
    finally:
        board.stop()
    assert figures["differences"] == [] and figures["hits"] == 1 and figures["settled"] > 5
    assert figures["audit"]["ok"] and figures["audit"]["from_genesis"]


# ---- the host's record alone ----

def _new_cycle(record):
    record.take({"ev": "config", "config": "A1", "was": None})
    record.take({"ev": "reset", "cycle": 1, "config": "A1", "meter": 100_000_000,
                 "commitment": "c"})


def test_the_record_names_a_contribution_the_table_does_not_charge():
    record = HostRecord()
    _new_cycle(record)
    record.placed([2, 5])
    record.take({"ev": "locked", "round": 1, "seq": 3, "meter": 100_050_000})
    record.take({"ev": "contribution", "round": 1, "seat": 2, "wager": 100, "amount": 20_000})
    record.take({"ev": "contribution", "round": 1, "seat": 5, "wager": 100, "amount": 30_000})
    record.round_done()
    assert record.differences == [
        "round 1: seat 5's contribution: the board says 30000, the host's record 20000"]


def test_the_record_names_seats_and_meters_that_disagree():
    record = HostRecord()
    _new_cycle(record)
    record.placed([1, 3])
    record.take({"ev": "locked", "round": 1, "seq": 3, "meter": 100_020_000})
    record.take({"ev": "contribution", "round": 1, "seat": 1, "wager": 100, "amount": 20_000})
    record.round_done()
    assert record.differences == [
        "round 1: qualifying seats: the board says [1], the host's record [1, 3]"]
    meters = {"seeded": 100_000_000, "contributed": 20_000, "paid": 0, "meter": 100_030_000,
              "hits": 0, "round": 1, "cycle": 1}
    assert not record.reconcile(meters, "now")
    assert record.differences[1:] == [
        "round 1: now: meter: the board's meters say 100030000, the host's record 100020000",
        "round 1: now: the board's meters break seeded + contributed = paid + meter + retained"]


def test_the_record_names_a_hit_paid_to_the_wrong_seat():
    record = HostRecord()
    _new_cycle(record)
    record.placed([1, 2])
    record.take({"ev": "locked", "round": 1, "seq": 3, "meter": 100_040_000})
    for seat in (1, 2):
        record.take({"ev": "contribution", "round": 1, "seat": seat, "wager": 100,
                     "amount": 20_000})
    record.round_done()
    # A hit value of $100.01 is passed by seat 1's contribution ($100.02).
    from mystery import hitvalue

    record.commitment = hitvalue.commitment(100_010_000, "ab")
    record.take({"ev": "hit", "seat": 2, "award": 100_040_000, "cycle": 1, "round": 1,
                 "hit_value": 100_010_000, "salt": "ab", "commitment": record.commitment})
    assert record.differences == [
        "round 1: hit's seat: the board says 2, the host's record 1",
        "round 1: hit's award: the board says 100040000, the host's record 100020000"]
    record.take({"ev": "refused", "reason": "no round while the meter is pending"})
    assert record.differences[-1].startswith("round 1: the board sent refused")


def test_the_record_follows_the_settings_and_retains_under_reset_minimum():
    # A1 at a $5 fixed wager: 10 cents a chip (2%, 653b.1(c)(4)). Hit value
    # $100.05: seat 1's chip takes the meter to $100.10 and wins it; seat 4's
    # 10 cents are retained under reset minimum, and the meters must say so.
    from mystery import hitvalue

    record = HostRecord()
    record.take({"ev": "setting", "name": "wager_cents", "was": None, "value": 500})
    record.take({"ev": "setting", "name": "reset", "was": "carry", "value": "minimum"})
    _new_cycle(record)
    record.commitment = hitvalue.commitment(100_050_000, "ab")
    record.placed([1, 4])
    record.take({"ev": "locked", "round": 1, "seq": 5, "meter": 100_200_000})
    for seat in (1, 4):
        record.take({"ev": "contribution", "round": 1, "seat": seat, "wager": 500,
                     "amount": 100_000})
    record.round_done()
    record.take({"ev": "hit", "seat": 1, "award": 100_100_000, "cycle": 1, "round": 1,
                 "hit_value": 100_050_000, "salt": "ab", "commitment": record.commitment})
    record.chose("table_inventory")
    record.take({"ev": "validated", "seat": 1, "award": 100_100_000, "cycle": 1,
                 "employee": None, "slip": None})
    record.take({"ev": "paid", "seat": 1, "award": 100_100_000, "cycle": 1,
                 "payment": "table_inventory"})
    record.take({"ev": "retained", "amount": 90_000, "cycle": 1})  # 10 cents are owed
    assert record.differences == [
        "round 1: retained: the board says 90000, the host's record 100000"]
    meters = {"seeded": 100_000_000, "contributed": 200_000, "paid": 100_100_000, "meter": 0,
              "retained": 100_000, "hits": 1, "round": 1, "cycle": 1}
    assert record.reconcile(meters, "after the hit")


# ---- the side wagers' sums ----

def test_side_wager_sums_are_what_the_meters_must_show():
    from uthctl.soak.rounds import SideWagerSums

    # Seat 1's Trips $5 wins 3 to 1 on three of a kind (653b.2(b), paytable E):
    # $20 paid back; seat 2's Trips $1 loses: nothing paid back.
    data = {"seats": [{"seat": 1, "wagers": {"trips": 500}},
                      {"seat": 2, "wagers": {"trips": 100}}]}
    answered = [{"results": {"trips": {"net": 1500}}}, {"results": {"trips": {"net": -100}}}]
    sums = SideWagerSums()
    sums.add(data, answered)
    meters = {"side_wagers": {"settled": 1, "wagers": {
        "trips/E": {"wagers": 2, "wagered": 600, "paid": 2000}}}}
    assert sums.differences(meters, {}) == []
    meters["side_wagers"]["wagers"]["trips/E"]["paid"] = 1900
    assert sums.differences(meters, {}) == [
        "side wager meters trips/E: the board's wagers, wagered, paid [2, 600, 1900],"
        " the host's [2, 600, 2000]"]
    # A board that settled before the soak: only what the soak added counts.
    before = {"settled": 4, "wagers": {"trips/E": {"wagers": 5, "wagered": 900, "paid": 0}}}
    later = {"side_wagers": {"settled": 5, "wagers": {
        "trips/E": {"wagers": 7, "wagered": 1500, "paid": 2000}}}}
    assert sums.differences(later, before) == []
