# The host link's `round` command, its line and its heap: a round's line may
# be long and no other; a settlement whose commit never landed did not
# happen; a round with no heap to load the settlement or hash its label is
# refused and play goes on; a board reserves the round's line at start.
# The rules and the round: round_rig.py; the settlement itself:
# test_round_command.py.
import gc
import json
import os
import sys

import tmpdir

# What the first round loads, loaded while the heap is whole (test_round_command.py says why).
from mystery import settlement, wagers  # noqa: E402, F401, I001
from round_rig import EXPECTED, ROUND, TABLES, changed, ready, results, round_reply, set_rules
from table.hostlink import MAX_LINE, MAX_ROUND_LINE
from table_rig import Rig


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
    rig = ready(root)
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
    rig = ready(root)
    round_reply(rig, ROUND)
    meter_copies = _files(root, ("wagers.a", "wagers.b"))
    side_before = rig.command(cmd="meters")[-1]["meters"]["side_wagers"]
    reply = round_reply(rig, ROUND)
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
    assert round_reply(again, ROUND)["seq"] == reply["seq"]
    assert again.command(cmd="meters")[-1]["meters"]["side_wagers"]["settled"] == 2


@tmpdir.within
def test_wager_meters_that_are_not_the_last_settlements_are_a_fault(root):
    # Both copies lost while the log holds a settlement that a later round's
    # commit confirms: the meters cannot be read back, and the table does not
    # play on with them at zero.
    rig = ready(root)
    round_reply(rig, ROUND)
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

    rig = ready(root)
    round_reply(rig, ROUND)  # the settlement loaded, as the table's first round loads it
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
        reply = round_reply(rig, ROUND)
    finally:
        builtins.__import__ = real_import
        _restore_settlement(kept)
    assert reply == {"ok": False, "id": 7, "error": "no memory free to load the settlement: "
                     "rounds cannot be settled on this board"}, reply
    assert rig.table.bonus.store.head_seq == head  # nothing recorded
    assert rig.command(cmd="ping")[-1]["ok"]  # the table plays on
    assert results(round_reply(rig, ROUND)) == EXPECTED  # the heap back, the round settles


@tmpdir.within
def test_the_settlement_loaded_at_start_needs_no_heap_at_the_first_round(root):
    # A board loads the settlement as it starts (app.build's ready_for_rounds),
    # while its heap is whole: loading it grows the runtime's table of names
    # into one new block, which a heap in pieces after play may not have. So
    # an import that would fail at the first round no longer refuses it.
    import builtins

    from table import app
    from table.heap import HeapWatch

    rig = ready(root)
    kept = _unload_settlement()
    rig.link.heap = HeapWatch(rig.link.send, None)
    real_import = builtins.__import__

    def no_room(name, *args):
        # Loading fails; finding what is loaded takes no heap.
        fromlist = args[2] if len(args) > 2 else None
        asked = name in _SETTLEMENT or (name == "" and fromlist and "settlement" in fromlist)
        if asked and "mystery.settlement" not in sys.modules:
            raise MemoryError("memory allocation failed")
        return real_import(name, *args)

    try:
        app.ready_for_rounds(rig.link)
        builtins.__import__ = no_room  # from here on the heap has no room for it
        reply = round_reply(rig, ROUND)
    finally:
        builtins.__import__ = real_import
        if "mystery.settlement" not in sys.modules:
            _restore_settlement(kept)
    assert results(reply) == EXPECTED, reply


def _started_leaves_the_settlement(rig):
    # What a board makes for rounds as it starts (app.ready_for_rounds), with
    # the settlement forgotten first: it must not load it.
    from table import app
    from table.heap import HeapWatch

    kept = _unload_settlement()
    try:
        rig.link.heap = HeapWatch(rig.link.send, None)
        app.ready_for_rounds(rig.link)
        assert "mystery.settlement" not in sys.modules
    finally:
        _restore_settlement(kept)


@tmpdir.within
def test_a_table_not_yet_configured_leaves_the_settlement_to_its_first_round(root):
    # Its configuration's store write comes first and needs the heap; no
    # round can be played before it.
    rig = Rig(root)
    _started_leaves_the_settlement(rig)
    rig.configure("A1")
    set_rules(rig, paytables=TABLES)
    assert results(round_reply(rig, ROUND)) == EXPECTED


@tmpdir.within
def test_a_table_with_no_paytables_leaves_the_settlement_to_its_first_round(root):
    # A configured table that settles no side wager (no paytables in force)
    # keeps the settlement's heap for its commits: on the emulated WROOM a
    # signed LOCK found no room with it loaded. Paytables set, it settles.
    rig = Rig(root)
    rig.configure("A1")
    _started_leaves_the_settlement(rig)
    set_rules(rig, paytables=TABLES)
    assert results(round_reply(rig, ROUND)) == EXPECTED


@tmpdir.within
def test_a_label_with_no_heap_for_its_hash_text_is_refused_and_play_goes_on(root):
    # A label whose hash's text is written field by field loads chain_fields;
    # where the heap cannot hold it the round is refused before any commit,
    # not the table put in a fault by a commit that failed.
    import builtins

    rig = ready(root)
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
        reply = round_reply(rig, changed(ROUND, ("round",), "caf\u00e9"))
    finally:
        builtins.__import__ = real_import
        if kept is not None:
            sys.modules["mystery.chain_fields"] = kept
    assert reply == {"ok": False, "id": 7, "error": "no memory free to settle this round now"}
    assert rig.table.bonus.store.head_seq == head and rig.table.state != "fault"
    assert round_reply(rig, changed(ROUND, ("round",), "caf\u00e9"))["ok"]


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
    rig = ready(root, reserve=False)
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
    rig = ready(root, reserve=False)
    assert len(rig.link.buffer) == MAX_LINE
    rig.feed(_round_line().encode())
    assert json.loads(rig.lines[-1])["ok"]
    assert len(rig.link.buffer) == MAX_ROUND_LINE
