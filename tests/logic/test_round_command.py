# The host link's `round` command: a round settled on the board by the rules
# set on it, answered, recorded in the log and counted on the side wagers'
# meters in one commit; a bad round refused whole with nothing recorded.
# Every figure is worked by hand from the paytables' odds (653b.2-653b.5).
import gc
import json
import os
import sys

import tmpdir
from expander_rig import ExpanderRig
from mystery import chain
from table.hostlink import MAX_LINE, MAX_ROUND_LINE
from table_rig import Rig

TABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}

# Dealer Qs Ks on 9s Ts Js 9c 9d: the dealer makes a king-high straight flush.
ROUND = {"round": "r-1", "dealer": ["Qs", "Ks"], "board": ["9s", "Ts", "Js", "9c", "9d"],
         "seats": [
             {"seat": 1, "cards": ["9h", "2c"],
              "wagers": {"trips": 500, "bad_beat": 500, "play_the_board": 500,
                         "ultimate_pairs": 500}},
             {"seat": 3, "cards": ["Ah", "Ad"], "wagers": {"trips": 500, "ultimate_pairs": 1000}},
             {"seat": 5, "cards": ["7c", "2d"], "folded": True,
              "wagers": {"trips": 200, "bad_beat": 200}}]}

# Seat 1: four nines, Trips E 30 to 1 ($150); they lose to the straight flush,
# Bad Beat C 500 to 1 ($2,500); the board's three nines, Play the Board A 7 to 1
# ($35); 9-2 offsuit, no Ultimate Pairs line (-$5). Seat 3: nines full of aces,
# Trips E 7 to 1 ($35); AA, Ultimate Pairs F 30 to 1 on $10 ($300). Seat 5,
# folded: three nines, Trips 3 to 1 on $2 ($6), and losing with them, Bad Beat
# 9 to 1 on $2 ($18): a folded hand stays in action by default.
EXPECTED = {
    1: {"trips": ("four_of_a_kind", 30, 15000), "bad_beat": ("four_of_a_kind", 500, 250000),
        "play_the_board": ("three_of_a_kind", 7, 3500), "ultimate_pairs": (None, None, -500)},
    3: {"trips": ("full_house", 7, 3500), "ultimate_pairs": ("aa", 30, 30000)},
    5: {"trips": ("three_of_a_kind", 3, 600), "bad_beat": ("three_of_a_kind", 9, 1800)},
}

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


def set_rules(rig, **values):
    # The rules set on the table in service mode, as a floorperson sets them.
    rig.key.level = 1
    rig.run(100)
    for name, value in values.items():
        reply = rig.command(cmd="set", name=name, value=value)[-1]
        assert reply["ok"], reply
    rig.key.level = 0
    rig.run(100)


def _ready(root, reserve=True, **rules):
    rig = Rig(root)
    # The 4 KB line made at start, as app.build does on a board, while the
    # previous test's has just been freed (reserve=False: the unreserved path).
    if reserve:
        rig.link.reserve_round_line()
    rig.configure("A1")
    set_rules(rig, paytables=TABLES, **rules)
    return rig


def _round(rig, data):
    command = {"cmd": "round", "id": 7}
    command.update(data)
    return rig.command(**command)[-1]


def _results(reply):
    return {seat["seat"]: {wager: (r["category"], r["odds"], r["net"])
                           for wager, r in seat["results"].items()}
            for seat in reply["seats"]}


def _log(rig):
    return [r for r in rig.table.bonus.log_since(0)]


@tmpdir.within
def test_a_round_is_settled_answered_recorded_and_metered(root):
    rig = _ready(root)
    head = rig.table.bonus.store.head_seq
    reply = _round(rig, ROUND)
    assert reply["ok"] and reply["reply"] == "round" and reply["id"] == 7, reply
    assert reply["round"] == "r-1"
    assert _results(reply) == EXPECTED, reply
    assert reply["seq"] == head + 1
    meters = rig.command(cmd="meters")[-1]["meters"]
    assert meters["side_wagers"] == {"settled": 1, "wagers": METERS}, meters["side_wagers"]
    assert meters["log_seq"] == head + 1
    record = _log(rig)[-1]
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
    assert chain.verify(_log(rig))[0]


@tmpdir.within
def test_the_meters_and_record_survive_a_restart(root):
    rig = _ready(root)
    _round(rig, ROUND)
    _round(rig, ROUND)
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
    assert [r["ev"] for r in _log(again)][-2:] == ["settled", "settled"]


@tmpdir.within
def test_a_log_hashed_by_the_earlier_rule_still_boots_and_verifies(root):
    # A board updated with a round labelled café in its log, hashed as the
    # firmware before the canonical string rule hashed it (MicroPython's
    # json.dumps: é raw): its start-up check must not call the log altered.
    written_by_now = chain.record_hash
    chain.record_hash = chain.earlier_hash
    try:
        rig = _ready(root)
        assert _round(rig, _changed(ROUND, ("round",), "caf\u00e9"))["ok"]
    finally:
        chain.record_hash = written_by_now
    settled = _log(rig)[-1]
    assert settled["ev"] == "settled" and chain.record_hash(settled) != settled["hash"]
    del rig
    gc.collect()
    again = Rig(root)
    assert again.events("fault") == [] and again.table.state != "fault"
    assert chain.verify(_log(again)) == (True, "%d records chain (1 hashed by the earlier "
                                               "rule, before the canonical text was ASCII)"
                                         % settled["seq"])


@tmpdir.within
def test_the_payout_limit_set_on_the_table_applies(root):
    # A $1,000 limit on Bad Beat only: seat 1's $2,500 is paid $1,000.
    rig = _ready(root, max_payout_cents={"bad_beat": 100000})
    reply = _round(rig, ROUND)
    bad_beat = reply["seats"][0]["results"]["bad_beat"]
    assert bad_beat == {"category": "four_of_a_kind", "odds": 500, "net": 100000,
                        "limited": True, "unlimited": 250000}, bad_beat
    assert reply["seats"][0]["results"]["trips"]["net"] == 15000
    side = rig.command(cmd="meters")[-1]["meters"]["side_wagers"]["wagers"]["bad_beat/C"]
    assert side["paid"] == 100500 + 2000 and side["limited"] == 1
    assert _log(rig)[-1]["seats"][0][4] == [15000, 100000, 3500, -500]
    assert _log(rig)[-1]["limits"] == [None, 100000, None, None]


def _changed(round_data, path, value):
    data = json.loads(json.dumps(round_data))
    place = data
    for key in path[:-1]:
        place = place[key]
    if value is _GONE:
        del place[path[-1]]
    else:
        place[path[-1]] = value
    return data


_GONE = object()

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
    rig = _ready(root)
    before = rig.command(cmd="meters")[-1]["meters"]
    for path, value, says in BAD_ROUNDS:
        reply = _round(rig, _changed(ROUND, path, value))
        assert reply["ok"] is False and says in reply["error"], (path, value, reply)
        assert reply["id"] == 7
    # The meters name the log's head (log_seq, log_hash): no record was added.
    assert rig.command(cmd="meters")[-1]["meters"] == before


@tmpdir.within
def test_the_stake_limit_set_on_the_table_applies(root):
    rig = _ready(root, max_stake_cents=150_000)
    big = _changed(ROUND, ("seats", 1, "wagers", "trips"), 150_000)
    reply = _round(rig, big)
    assert reply["ok"], reply
    # Nines full of aces, Trips E 7 to 1 (the module's EXPECTED) on $1,500.
    assert _results(reply)[3]["trips"] == ("full_house", 7, 7 * 150_000)
    over = _round(rig, _changed(ROUND, ("seats", 1, "wagers", "trips"), 150_001))
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
    rig.configure("A1")
    set_rules(rig, paytables={"trips": "E"})
    reply = _round(rig, ROUND)
    assert reply["ok"] is False and "bad_beat" in reply["error"], reply
    assert rig.command(cmd="meters")[-1]["meters"]["side_wagers"] == {"settled": 0,
                                                                      "wagers": {}}


@tmpdir.within
def test_no_round_is_settled_in_service_mode(root):
    rig = _ready(root)
    rig.key.level = 1
    rig.run(100)
    reply = _round(rig, ROUND)
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
    reply = _round(rig, ROUND)
    assert reply == {"ok": False, "id": 7, "error": (
        "the table is in a fault (I2C expander 0x20: bus error reading the spots (OSError "
        "5)): no round is settled until it is cleared and the board restarted")}, reply
    assert rig.command(cmd="meters")[-1]["meters"] == before
    assert rig.events("settled") == []


def _feed_in_pieces(rig, *pieces):
    # As a serial link delivers a long line: a piece at a time, each piece a
    # short text or (text, times) repeated, so no long text is ever built here.
    for piece in pieces:
        text, times = piece if isinstance(piece, tuple) else (piece, 1)
        for _ in range(times):
            rig.feed(text.encode())
    rig.feed(b"\n")
    return json.loads(rig.lines[-1])


@tmpdir.within
def test_a_round_line_may_be_long_and_no_other(root):
    rig = _ready(root)
    body = json.dumps(ROUND)[1:]  # the round's fields and its closing brace
    # 3,000 bytes and more: settled, whatever the order of its keys.
    reply = _feed_in_pieces(rig, "{", (" " * 100, 28), body[:-1], ', "cmd": "round"}')
    assert reply["ok"] and reply["reply"] == "round", reply
    reply = _feed_in_pieces(rig, '{"cmd":"round",', (" " * 100, 41), body)
    assert reply == {"ok": False, "error": "line longer than 4096 bytes"}
    reply = _feed_in_pieces(rig, '{"cmd":"ping",', (" " * 100, 3), '"id":1}')
    assert reply == {"ok": False, "error": "line longer than 256 bytes"}
    reply = _feed_in_pieces(rig, "[", (" " * 100, 3), "]")
    assert reply == {"ok": False, "error": "line longer than 256 bytes"}
    assert rig.command(cmd="meters")[-1]["meters"]["side_wagers"]["settled"] == 1


def _files(root, names):
    found = {}
    for name in names:
        try:
            with open(root + "/" + name, "rb") as f:
                found[name] = f.read()
        except OSError:
            pass
    return found


@tmpdir.within
def test_a_settlement_whose_commit_record_never_landed_did_not_happen(root):
    # A settlement's commit record is its copy of the wager meters, written
    # after its log record. A power cut between the two: the copies as they
    # were before it. The boot drops the settlement and keeps the meters before it.
    rig = _ready(root)
    _round(rig, ROUND)
    meter_copies = _files(root, ("wagers.a", "wagers.b"))
    side_before = rig.command(cmd="meters")[-1]["meters"]["side_wagers"]
    reply = _round(rig, ROUND)
    assert reply["ok"]
    del rig
    gc.collect()
    for name in ("wagers.a", "wagers.b"):
        if name in meter_copies:
            with open(root + "/" + name, "wb") as f:
                f.write(meter_copies[name])
        else:
            os.remove(root + "/" + name)
    again = Rig(root)
    assert again.events("fault") == []
    warnings = [e["reason"] for e in again.events("store_warning")]
    assert warnings == ["an operation whose meter record never landed (a power cut, or a bad "
                        "record) did not happen: the settled from log record %d is dropped"
                        % reply["seq"]], warnings
    assert again.command(cmd="meters")[-1]["meters"]["side_wagers"] == side_before
    # The next settlement writes over the copy that did not count, and counts.
    assert _round(again, ROUND)["seq"] == reply["seq"]
    assert again.command(cmd="meters")[-1]["meters"]["side_wagers"]["settled"] == 2


@tmpdir.within
def test_wager_meters_that_are_not_the_last_settlements_are_a_fault(root):
    # Both copies lost while the log holds a settlement that a later round's
    # commit confirms: the meters cannot be read back, and the table does not
    # play on with them at zero.
    rig = _ready(root)
    _round(rig, ROUND)
    rig.chip(1)
    rig.press_lock()
    assert rig.events("locked")
    del rig
    gc.collect()
    for name in ("wagers.a", "wagers.b"):
        try:
            os.remove(root + "/" + name)
        except OSError:
            pass
    again = Rig(root)
    faults = [e["reason"] for e in again.events("fault")]
    assert len(faults) == 1 and "wager meters are not those of the last settlement" in faults[0]


_SETTLEMENT = ("mystery.settlement", "mystery.table_rules", "mystery.wagers")


def _unload_settlement():
    # Forgotten, so that the next round loads the settlement again; what was
    # loaded, for _restore_settlement to put back (other modules hold it).
    import mystery

    kept = {}
    for name in _SETTLEMENT:
        kept[name] = sys.modules.pop(name, None)
        short = name.split(".")[1]
        if hasattr(mystery, short):
            delattr(mystery, short)
    return kept


def _restore_settlement(kept):
    import mystery

    for name, module in kept.items():
        if module is not None:
            sys.modules[name] = module
            setattr(mystery, name.split(".")[1], module)


@tmpdir.within
def test_a_round_with_no_heap_to_load_the_settlement_is_refused_and_play_goes_on(root):
    # The settlement is loaded at the first round; where the heap cannot hold
    # it the import raises MemoryError, made to here by an import that does.
    import builtins

    rig = _ready(root)
    _round(rig, ROUND)  # the settlement loaded, as the table's first round loads it
    head = rig.table.bonus.store.head_seq
    kept = _unload_settlement()
    real_import = builtins.__import__

    def no_room(name, *args):
        fromlist = args[2] if len(args) > 2 else None
        if name in _SETTLEMENT or (name == "" and fromlist and "settlement" in fromlist):
            raise MemoryError("memory allocation failed")
        return real_import(name, *args)

    builtins.__import__ = no_room
    try:
        reply = _round(rig, ROUND)
    finally:
        builtins.__import__ = real_import
        _restore_settlement(kept)
    assert reply == {"ok": False, "id": 7, "error": "no memory free to load the settlement: "
                     "rounds cannot be settled on this board"}, reply
    assert rig.table.bonus.store.head_seq == head  # nothing recorded
    assert rig.command(cmd="ping")[-1]["ok"]  # the table plays on
    assert _results(_round(rig, ROUND)) == EXPECTED  # the heap back, the round settles


@tmpdir.within
def test_a_label_with_no_heap_for_its_hash_text_is_refused_and_play_goes_on(root):
    # A label whose hash's text is written field by field loads chain_fields;
    # where the heap cannot hold it the round is refused before any commit,
    # not the table put in a fault by a commit that failed.
    import builtins

    rig = _ready(root)
    head = rig.table.bonus.store.head_seq
    kept = sys.modules.pop("mystery.chain_fields", None)
    real_import = builtins.__import__

    def no_room(name, *args):
        fromlist = args[2] if len(args) > 2 else None
        if name == "mystery.chain_fields" or (fromlist and "chain_fields" in fromlist):
            raise MemoryError("memory allocation failed")
        return real_import(name, *args)

    builtins.__import__ = no_room
    try:
        reply = _round(rig, _changed(ROUND, ("round",), "caf\u00e9"))
    finally:
        builtins.__import__ = real_import
        if kept is not None:
            sys.modules["mystery.chain_fields"] = kept
    assert reply == {"ok": False, "id": 7, "error": "no memory free to settle this round now"}
    assert rig.table.bonus.store.head_seq == head and rig.table.state != "fault"
    assert _round(rig, _changed(ROUND, ("round",), "caf\u00e9"))["ok"]


def _round_line():
    # A six-seat round with every side wager, well past an ordinary line's 256 bytes.
    stakes = {"trips": 500, "bad_beat": 500, "play_the_board": 500, "ultimate_pairs": 500}
    cards = ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "Tc", "Jc", "Qc", "Kc", "Ac"]
    seats = [{"seat": n + 1, "cards": cards[2 * n:2 * n + 2], "wagers": stakes}
             for n in range(6)]
    return json.dumps({"cmd": "round", "id": 9, "round": "r-1", "dealer": ["Qs", "Ks"],
                       "board": ["9s", "Ts", "Js", "9d", "9h"], "seats": seats}) + "\n"


@tmpdir.within
def test_a_board_reserves_its_round_line_at_start(root):
    # app.build reserves it: the first round later needs no new piece of heap for its line.
    rig = _ready(root)
    rig.link.reserve_round_line()
    buffer = rig.link.buffer
    assert len(buffer) == MAX_ROUND_LINE
    line = _round_line()
    assert MAX_LINE < len(line) < MAX_ROUND_LINE
    rig.feed(line.encode())
    reply = json.loads(rig.lines[-1])
    assert reply["id"] == 9 and reply["reply"] == "round" and reply["ok"], reply
    assert rig.link.buffer is buffer
    rig.link.reserve_round_line()  # again: nothing new
    assert rig.link.buffer is buffer


@tmpdir.within
def test_without_the_reservation_the_first_round_makes_the_buffer(root):
    rig = _ready(root, reserve=False)
    assert len(rig.link.buffer) == MAX_LINE
    rig.feed(_round_line().encode())
    assert json.loads(rig.lines[-1])["ok"]
    assert len(rig.link.buffer) == MAX_ROUND_LINE
