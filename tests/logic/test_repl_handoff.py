# The technician's way to MicroPython's REPL (docs/host-link.md, "The REPL"):
# the host link's `repl`, only with the key switch held. Its `repl` record is
# committed first, signed once the board has a record key; the live cycle's
# hit value then counts as exposed, so LOCK is refused until a service-mode
# redraw, across a restart too. A new board, with no record yet, writes none.
import binascii
import json

import hmac_by_hand
import tmpdir
from mystery.meter import EXPOSED
from scripted import source_for
from table_rig import Rig

KEY = "00112233445566778899aabbccddeeff" * 2
_KEY_BYTES = binascii.unhexlify(KEY)


def _round(rig, seat=2):
    rig.chip(seat)
    rig.press_lock()
    rig.chip(seat, False)
    rig.run(300)


def _log(rig):
    return [reply["record"] for reply in rig.command(cmd="log", since=0) if "record" in reply]


@tmpdir.within
def test_the_repl_is_refused_without_the_key_and_nothing_is_written(root):
    rig = Rig(root)
    rig.configure("A1")
    seq = rig.table.bonus.store.head_seq
    for state in ("betting", "locked"):
        if state == "locked":
            rig.chip(2)
            rig.press_lock()
            seq += 1  # the round's record
        assert rig.table.state == state
        reply = rig.command(cmd="repl")[-1]
        assert reply == {"ok": False, "error": "the REPL opens only in service mode: hold the "
                         "key switch"}, reply
        assert not rig.link.handed_off
        assert rig.table.bonus.store.head_seq == seq
    assert rig.events("repl") == []


@tmpdir.within
def test_the_repl_record_is_signed_and_the_hit_value_is_exposed_until_a_redraw(root):
    rig = Rig(root)
    rig.enter_service()  # keyed before its first configuration: every record signed
    assert rig.command(cmd="provision", key=KEY)[-1]["seq"] == 1
    rig.command(cmd="config", mystery="A1")  # 2 config, 3 reset
    rig.leave_service()  # 4
    _round(rig)  # 5
    commitment = rig.command(cmd="status")[-1]["commitment"]
    rig.enter_service()  # 6
    # What came in the same read after `repl` is the REPL's: no reply to it.
    rig.link.feed(b'{"cmd": "repl", "id": 9}\n{"cmd": "ping"}\n', rig.now)
    reply = json.loads(rig.lines[-1])
    assert reply == {"ok": True, "reply": "repl", "seq": 7, "exposed": True, "id": 9}, reply
    assert rig.link.handed_off

    # The board's next start, as the technician's soft reset makes it.
    again = Rig(root, random_bytes=source_for(7))  # the redraw's value and salt
    records = _log(again)
    assert [r["ev"] for r in records] == ["key", "config", "reset", "service", "round",
                                          "service", "repl"]
    repl = records[-1]
    assert (repl["cycle"], repl["phase"], repl["exposed"]) == (1, "running", True), repl
    for record in records:
        assert record["auth"] == hmac_by_hand.record_auth(_KEY_BYTES, record), record
    assert again.command(cmd="status")[-1]["exposed"] is True
    _round(again)
    assert again.events("refused")[-1]["reason"] == EXPOSED
    assert again.events("locked") == []
    again.enter_service()
    redraw = again.command(cmd="redraw")[-1]
    assert redraw["ok"] and redraw["commitment"] != commitment, redraw
    again.leave_service()
    _round(again)
    assert again.events("locked")[-1]["seq"] == 11  # 8 service, 9 the redraw, 10 service


@tmpdir.within
def test_a_new_board_hands_over_its_repl_without_a_record(root):
    rig = Rig(root)
    rig.enter_service()
    reply = rig.command(cmd="repl")[-1]
    assert reply == {"ok": True, "reply": "repl", "seq": None, "exposed": False}, reply
    assert rig.table.bonus.store.head_seq == 0
    assert Rig(root).command(cmd="status")[-1]["state"] == "unconfigured"


@tmpdir.within
def test_a_key_given_before_the_first_configuration_signs_every_record(root):
    # provision in service mode on an unconfigured board: the table keyed at
    # installation has no unsigned record.
    rig = Rig(root)
    assert rig.table.state == "unconfigured"
    rig.enter_service()
    given = rig.command(cmd="provision", key=KEY)[-1]
    assert given["ok"] and given["seq"] == 1, given
    rig.leave_service()
    assert rig.table.state == "unconfigured"
    rig.configure("A1")
    _round(rig)
    records = _log(rig)
    # (service mode left after the key, then entered and left for the configuration)
    assert [r["ev"] for r in records] == ["key", "service", "service", "config", "reset",
                                          "service", "round"]
    for record in records:
        assert record["auth"] == hmac_by_hand.record_auth(_KEY_BYTES, record), record


@tmpdir.within
def test_a_board_in_a_fault_opens_its_repl_with_the_key_held(root):
    # The REPL is how a technician mends what a fault names: with the key
    # held it opens there too, recorded (and the value exposed) while the
    # store can take a record; with none when the store is what failed.
    Rig(root).configure("A1")
    rig = Rig(root, uth_sensors=False)  # seats that disagree with the board's declaration
    assert rig.table.state == "fault"
    assert not rig.command(cmd="repl")[-1]["ok"]  # the key not held
    rig.key.level = 1
    rig.run(100)
    reply = rig.command(cmd="repl")[-1]
    # 3: service mode left after the configuration; 4: the seats' fault
    assert (reply["ok"], reply["seq"], reply["exposed"]) == (True, 5, True), reply

    for name in ("meter.a", "meter.b"):
        with open(root + "/" + name, "w") as f:
            f.write("junk")
    broken = Rig(root)
    assert broken.table.state == "fault" and broken.table.bonus.fault is not None
    broken.key.level = 1
    broken.run(100)
    reply = broken.command(cmd="repl")[-1]
    assert reply == {"ok": True, "reply": "repl", "seq": None, "exposed": False}, reply
