# The host link's `round` command: a round settled on the board by the rules
# set on it, answered, recorded in the log and counted on the side wagers'
# meters in one commit; a bad round refused whole with nothing recorded.
# Every figure is worked by hand from the paytables' odds (653b.2-653b.5).
# Its long lines, failed commits and heap: test_round_line.py.
import gc

import tmpdir
from expander_rig import ExpanderRig

# What the first round loads, loaded here while the heap is whole, as a
# board's first round loads it into a heap not yet in pieces: loaded by a
# test among its passing objects instead, it leaves the board-sized heap
# with no 4 KB piece for a later test's round line.
from mystery import chain, settlement, wagers  # noqa: E402, F401, I001
from round_rig import (
    EXPECTED,
    ROUND,
    TABLES,
    changed,
    log_records,
    ready,
    results,
    round_reply,
    set_rules,
)
from table_rig import Rig

# Wagered and paid back (stake plus win) per wager, from EXPECTED.
METERS = {
    "trips/E": {"rounds": 1, "wagers": 3, "wagered": 1200, "paid": 15500 + 4000 + 800,
                "limited": 0,
                "lines": {"four_of_a_kind": 1, "full_house": 1, "three_of_a_kind": 1}},
    "bad_beat/C": {"rounds": 1, "wagers": 2, "wagered": 700, "paid": 250500 + 2000,
                   "limited": 0, "lines": {"four_of_a_kind": 1, "three_of_a_kind": 1}},
    "play_the_board/A": {"rounds": 1, "wagers": 1, "wagered": 500, "paid": 4000, "limited": 0,
                         "lines": {"three_of_a_kind": 1}},
    "ultimate_pairs/F": {"rounds": 1, "wagers": 2, "wagered": 1500, "paid": 31000,
                         "limited": 0, "lines": {"aa": 1}},
}


@tmpdir.within
def test_a_round_is_settled_answered_recorded_and_metered(root):
    rig = ready(root)
    head = rig.table.bonus.store.head_seq
    reply = round_reply(rig, ROUND)
    assert reply["ok"] and reply["reply"] == "round" and reply["id"] == 7, reply
    assert reply["round"] == "r-1"
    assert results(reply) == EXPECTED, reply
    assert reply["seq"] == head + 1
    meters = rig.command(cmd="meters")[-1]["meters"]
    assert meters["side_wagers"] == {"settled": 1, "wagers": METERS}, meters["side_wagers"]
    assert meters["log_seq"] == head + 1
    record = log_records(rig)[-1]
    assert record["ev"] == "settled" and record["seq"] == head + 1 and record["label"] == "r-1"
    # Per wager in the order trips, bad_beat, play_the_board, ultimate_pairs.
    assert record["cards"] == "QsKs9sTsJs9c9d"
    assert record["paytables"] == ["E", "C", "A", "F"]
    assert record["limits"] == [None, None, None, None]
    assert record["rules"] == ["two_way", "action"]
    assert record["seats"] == [[1, "9h2c", False, [500, 500, 500, 500],
                                [15000, 250000, 3500, -500]],
                               [3, "AhAd", False, [500, 0, 0, 1000], [3500, 0, 0, 30000]],
                               [5, "7c2d", True, [200, 200, 0, 0], [600, 1800, 0, 0]]]
    assert chain.verify(log_records(rig))[0]


@tmpdir.within
def test_the_meters_and_record_survive_a_restart(root):
    rig = ready(root)
    round_reply(rig, ROUND)
    round_reply(rig, ROUND)
    del rig  # a board runs one controller: the restart's takes its heap
    gc.collect()
    again = Rig(root)
    assert again.events("fault") == [] and again.events("store_warning") == []
    side = again.command(cmd="meters")[-1]["meters"]["side_wagers"]
    assert side["settled"] == 2
    trips = side["wagers"]["trips/E"]
    assert (trips["rounds"], trips["wagers"], trips["wagered"], trips["paid"]) == (
        2, 6, 2400, 2 * 20300)
    assert trips["lines"] == {"four_of_a_kind": 2, "full_house": 2, "three_of_a_kind": 2}
    assert [r["ev"] for r in log_records(again)][-2:] == ["settled", "settled"]


@tmpdir.within
def test_a_log_hashed_by_the_earlier_rule_still_boots_and_verifies(root):
    # A board updated with a round labelled café in its log, hashed as the
    # firmware before the canonical string rule hashed it (MicroPython's
    # json.dumps: é raw): its start-up check must not call the log altered.
    written_by_now = chain.record_hash
    chain.record_hash = chain.earlier_hash
    try:
        rig = ready(root)
        assert round_reply(rig, changed(ROUND, ("round",), "caf\u00e9"))["ok"]
    finally:
        chain.record_hash = written_by_now
    settled = log_records(rig)[-1]
    assert settled["ev"] == "settled" and chain.record_hash(settled) != settled["hash"]
    del rig
    gc.collect()
    again = Rig(root)
    assert again.events("fault") == [] and again.table.state != "fault"
    assert chain.verify(log_records(again)) == (True, "%d records chain (1 hashed by the earlier "
                                               "rule, before the canonical text was ASCII)"
                                         % settled["seq"])


@tmpdir.within
def test_the_payout_limit_set_on_the_table_applies(root):
    # A $1,000 limit on Bad Beat only: seat 1's $2,500 is paid $1,000.
    rig = ready(root, max_payout_cents={"bad_beat": 100000})
    reply = round_reply(rig, ROUND)
    bad_beat = reply["seats"][0]["results"]["bad_beat"]
    assert bad_beat == {"category": "four_of_a_kind", "odds": 500, "net": 100000,
                        "limited": True, "unlimited": 250000}, bad_beat
    assert reply["seats"][0]["results"]["trips"]["net"] == 15000
    side = rig.command(cmd="meters")[-1]["meters"]["side_wagers"]["wagers"]["bad_beat/C"]
    assert side["paid"] == 100500 + 2000 and side["limited"] == 1
    assert log_records(rig)[-1]["seats"][0][4] == [15000, 100000, 3500, -500]
    assert log_records(rig)[-1]["limits"] == [None, 100000, None, None]


BAD_ROUNDS = (
    (("seats", 1, "cards"), ["7c", "Ks"], "seat 3: duplicate card Ks (also dealer)"),
    (("board",), ["9s", "Ts", "Js", "9c"], "board needs 5 cards"),
    (("dealer", 0), "Xx", "dealer: unknown card 'Xx'"),
    (("seats", 0, "wagers", "blind"), 500, "unknown key 'blind' in seat 1 wagers"),
    (("seats", 0, "wagers", "trips"), 5.5, "seat 1: trips wager must be whole cents"),
    (("seats", 0, "wagers", "trips"), "500", "seat 1: trips wager must be whole cents"),
    (("seats", 0, "folded"), "no", "seat 1: folded must be true or false"),
    (("seats",), [], "seats must be a non-empty list"),
    (("seats", 2, "seat"), 1, "seat 1 is listed twice"),
    (("paytables",), {"trips": "A"}, "the round's paytables {\"trips\": \"A\"} are not the "
                                      "table's {\"trips\": \"E\"}"),
    (("settings",), {"bad_beat_mode": "player_loses"}, "the round's settings"),
    (("max_payout_cents",), 5000, "the round's payout limits"),
    (("round",), {"a": 1}, "round must be a number of at most 40 digits or a text"),
    # Bounded like a text label: at most 40 digits (a record's size is flash wear).
    (("round",), 10 ** 40, "round must be a number of at most 40 digits"),
    (("round",), -(10 ** 300), "round must be a number of at most 40 digits"),
    # The stake limit, max_stake_cents: 100,000 cents unless the table sets it.
    (("seats", 0, "wagers", "trips"), 10 ** 300,
     "seat 1: trips wager is over the stake limit, max_stake_cents 100000"),
    (("seats", 1, "wagers", "ultimate_pairs"), 100_001,
     "seat 3: ultimate_pairs wager is over the stake limit, max_stake_cents 100000"),
    (("max_stake_cents",), 10 ** 300, "the round's stake limits"),
    # A name no table has is refused whatever its value, null too.
    (("paytables",), {"trips": "E", "bogus": None}, "unknown wager 'bogus' in paytables"),
    (("settings",), {"bogus": None}, "unknown key 'bogus' in settings"),
    (("settings",), {"blind": None}, "unknown key 'blind' in settings"),
)


@tmpdir.within
def test_a_bad_round_is_refused_whole_and_nothing_is_recorded(root):
    rig = ready(root)
    before = rig.command(cmd="meters")[-1]["meters"]
    for path, value, says in BAD_ROUNDS:
        reply = round_reply(rig, changed(ROUND, path, value))
        assert reply["ok"] is False and says in reply["error"], (path, value, reply)
        assert reply["id"] == 7
    # The meters name the log's head (log_seq, log_hash): no record was added.
    assert rig.command(cmd="meters")[-1]["meters"] == before


@tmpdir.within
def test_the_stake_limit_set_on_the_table_applies(root):
    rig = ready(root, max_stake_cents=150_000)
    big = changed(ROUND, ("seats", 1, "wagers", "trips"), 150_000)
    reply = round_reply(rig, big)
    assert reply["ok"], reply
    # Nines full of aces, Trips E 7 to 1 (the module's EXPECTED) on $1,500.
    assert results(reply)[3]["trips"] == ("full_house", 7, 7 * 150_000)
    over = round_reply(rig, changed(ROUND, ("seats", 1, "wagers", "trips"), 150_001))
    assert over["ok"] is False and "max_stake_cents 150000" in over["error"], over
    rig.key.level = 1
    rig.run(100)
    for value in (0, 10 ** 200, 100_000_001, "1000", None):
        reply = rig.command(cmd="set", name="max_stake_cents", value=value)[-1]
        assert reply["ok"] is False and reply["error"] == (
            "max_stake_cents must be whole cents from 1 to 100000000"), (value, reply)


@tmpdir.within
def test_a_wager_the_table_does_not_offer_is_refused(root):
    rig = Rig(root)
    rig.link.reserve_round_line()  # as app.build does on a board: the heap is a board's
    rig.configure("A1")
    set_rules(rig, paytables={"trips": "E"})
    reply = round_reply(rig, ROUND)
    assert reply["ok"] is False and "bad_beat" in reply["error"], reply
    assert rig.command(cmd="meters")[-1]["meters"]["side_wagers"] == {"settled": 0,
                                                                      "wagers": {}}


@tmpdir.within
def test_no_round_is_settled_in_service_mode(root):
    rig = ready(root)
    rig.key.level = 1
    rig.run(100)
    reply = round_reply(rig, ROUND)
    assert reply == {"ok": False, "error": "no round is settled in service mode", "id": 7}


@tmpdir.within
def test_no_round_is_settled_while_the_seats_are_in_a_fault(root):
    # An I2C bus error stops play until a restart (docs/host-link.md): a
    # round sent then is refused, saying so, and nothing is recorded.
    rig = ExpanderRig(root)
    rig.configure("A1")
    set_rules(rig, paytables=TABLES)
    rig.bus.broken = True
    rig.run(5)
    assert rig.table.state == "fault"
    before = rig.command(cmd="meters")[-1]["meters"]
    reply = round_reply(rig, ROUND)
    assert reply == {"ok": False, "id": 7, "error": (
        "the table is in a fault (I2C expander 0x20: bus error reading the spots (OSError "
        "5)): no round is settled until it is cleared and the board restarted")}, reply
    assert rig.command(cmd="meters")[-1]["meters"] == before
    assert rig.events("settled") == []


