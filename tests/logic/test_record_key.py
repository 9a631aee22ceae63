# The board's record key (docs/host-link.md, "Record keys"): given in service
# mode only, kept on flash across a restart, signing every record after it;
# a replacement signed with the key it replaces; the log's head answered
# over the host's nonce; and the key itself in nothing the board sends.
# Every authenticator is checked against hmac_by_hand.py, RFC 2104 worked
# from hashlib, not against the firmware's own computation.
import binascii
import json
import os

import hmac_by_hand
import tmpdir
from collecting import lock_collected, small_log
from table_rig import Rig

KEY_A = "00112233445566778899aabbccddeeff" * 2
KEY_B = "f0e1d2c3b4a5968778695a4b3c2d1e0f" * 2
NONCE = "0123456789abcdef"


def _bytes(text):
    return binascii.unhexlify(text)


def _provisioned(root, key=KEY_A):
    # A configured table given `key` in service mode, back in betting.
    rig = Rig(root)
    rig.configure("A1")
    rig.enter_service()
    reply = rig.command(cmd="provision", key=key)[-1]
    assert reply["ok"], reply
    rig.leave_service()
    return rig, reply


def _round(rig, seat=2):
    rig.chip(seat)
    rig.press_lock()
    rig.chip(seat, False)
    rig.run(300)
    assert rig.table.state == "betting", rig.table.state


def _log(rig):
    return [reply["record"] for reply in rig.command(cmd="log", since=0) if "record" in reply]


def _head_seq(rig):
    return rig.table.bonus.store.head_seq


@tmpdir.within
def test_a_key_is_given_only_in_service_mode_and_nothing_is_written_otherwise(root):
    rig = Rig(root)
    unconfigured = rig.command(cmd="provision", key=KEY_A)[-1]
    rig.configure("A1")
    seq = _head_seq(rig)
    betting = rig.command(cmd="provision", key=KEY_A)[-1]
    for reply in (unconfigured, betting):
        assert not reply["ok"] and "service mode" in reply["error"], reply
    assert _head_seq(rig) == seq and rig.events("key") == []
    assert rig.command(cmd="status")[-1]["key_id"] is None
    assert "keys" not in os.listdir(root)


@tmpdir.within
def test_a_malformed_key_or_the_key_in_force_is_refused_and_changes_nothing(root):
    rig, _ = _provisioned(root)
    rig.enter_service()
    seq = _head_seq(rig)
    for key in (KEY_A.upper(), KEY_A[:-2], KEY_A + "00", "zz" + KEY_A[2:], 12, None):
        reply = rig.command(cmd="provision", key=key)[-1]
        assert not reply["ok"] and "64 lower-case hex digits" in reply["error"], (key, reply)
    again = rig.command(cmd="provision", key=KEY_A)[-1]
    assert not again["ok"] and "already in force" in again["error"], again
    assert _head_seq(rig) == seq
    assert rig.command(cmd="status")[-1]["key_id"] == hmac_by_hand.key_id(_bytes(KEY_A))


@tmpdir.within
def test_the_first_key_signs_its_own_record_and_every_record_after_it(root):
    rig = Rig(root)
    rig.configure("A1")
    _round(rig)
    rig.enter_service()
    reply = rig.command(cmd="provision", key=KEY_A)[-1]
    kid = hmac_by_hand.key_id(_bytes(KEY_A))
    assert reply == {"ok": True, "reply": "provision", "key_id": kid,
                     "seq": _head_seq(rig)}, reply
    rig.leave_service()
    _round(rig, 3)
    _round(rig, 5)
    records = _log(rig)
    assert [r["ev"] for r in records] == ["config", "reset", "service", "round", "service",
                                          "key", "service", "round", "round"]
    before, after = records[:5], records[5:]  # (service mode left, then entered)
    assert all("auth" not in r for r in before), before
    key_record = after[0]
    assert (key_record["key_id"], key_record["was"]) == (kid, None), key_record
    for record in after:
        assert record["auth"] == hmac_by_hand.record_auth(_bytes(KEY_A), record), record
    assert rig.command(cmd="meters")[-1]["meters"]["key_id"] == kid


@tmpdir.within
def test_a_replacement_is_signed_with_the_key_it_replaces(root):
    rig, _ = _provisioned(root, KEY_A)
    _round(rig)
    rig.enter_service()
    reply = rig.command(cmd="provision", key=KEY_B)[-1]
    rig.leave_service()
    _round(rig)
    old, new = hmac_by_hand.key_id(_bytes(KEY_A)), hmac_by_hand.key_id(_bytes(KEY_B))
    assert reply["ok"] and reply["key_id"] == new, reply
    records = _log(rig)
    replacement = [r for r in records if r["ev"] == "key"][-1]
    assert (replacement["key_id"], replacement["was"]) == (new, old), replacement
    assert replacement["auth"] == hmac_by_hand.record_auth(_bytes(KEY_A), replacement)
    assert records[-1]["seq"] == replacement["seq"] + 2  # (service mode left between)
    assert records[-1]["auth"] == hmac_by_hand.record_auth(_bytes(KEY_B), records[-1])
    assert rig.command(cmd="status")[-1]["key_id"] == new


@tmpdir.within
def test_the_key_in_force_outlives_a_restart_and_the_old_one_is_gone(root):
    rig, _ = _provisioned(root, KEY_A)
    rig.enter_service()
    rig.command(cmd="provision", key=KEY_B)
    rig.leave_service()
    again = Rig(root)  # a restart on the same flash
    assert again.table.state == "betting" and again.table.fault() is None, again.table.fault()
    assert again.command(cmd="status")[-1]["key_id"] == hmac_by_hand.key_id(_bytes(KEY_B))
    _round(again)
    record = _log(again)[-1]
    assert record["auth"] == hmac_by_hand.record_auth(_bytes(KEY_B), record)
    with open(root + "/keys", "rb") as f:
        stored = f.read()
    assert KEY_B.encode() in stored and KEY_A.encode() not in stored, "the old key was kept"


@tmpdir.within
def test_a_key_the_meter_record_names_but_the_flash_lacks_is_a_fault(root):
    _provisioned(root)
    os.remove(root + "/keys")
    again = Rig(root)
    assert again.table.state == "fault", again.table.state
    assert "record key" in again.table.fault() and "not on flash" in again.table.fault()


@tmpdir.within
def test_head_answers_over_the_hosts_nonce_in_every_state(root):
    rig = Rig(root)
    bare = rig.command(cmd="head", nonce=NONCE)[-1]
    assert bare == {"ok": True, "reply": "head", "seq": 0, "hash": "0" * 64, "dropped": 0,
                    "nonce": NONCE}, bare  # no key yet: nothing to authenticate with
    rig.configure("A1")
    rig.enter_service()
    rig.command(cmd="provision", key=KEY_A)
    in_service = rig.command(cmd="head", nonce=NONCE)[-1]
    rig.leave_service()
    _round(rig)
    other = "aa" * 32
    betting = rig.command(cmd="head", nonce=other)[-1]
    last = _log(rig)[-1]
    assert (betting["seq"], betting["hash"]) == (last["seq"], last["hash"]), betting
    for answer, nonce in ((in_service, NONCE), (betting, other)):
        assert answer["ok"] and answer["nonce"] == nonce, answer
        assert answer["key_id"] == hmac_by_hand.key_id(_bytes(KEY_A))
        assert answer["dropped"] == 0, answer  # nothing dropped: the log starts at record 1
        assert answer["auth"] == hmac_by_hand.head_auth(_bytes(KEY_A), answer["seq"],
                                                        answer["hash"], nonce, 0), answer


@tmpdir.within
def test_head_refuses_a_nonce_that_is_not_even_hex_of_8_to_64_digits(root):
    rig = Rig(root)
    for nonce in ("0123456", "012345678", "ABCDEF01", "0123456g", "aa" * 33, 12345678, None):
        reply = rig.command(cmd="head", nonce=nonce)[-1]
        assert not reply["ok"] and "nonce" in reply["error"], (nonce, reply)
    assert rig.command(cmd="head", nonce="ab" * 32)[-1]["ok"]


@tmpdir.within
def test_the_key_is_in_nothing_the_board_sends(root):
    # Every line sent through a provision, a replacement, rounds, status,
    # meters, head, a log export and refusals of the key (malformed, in
    # force, outside service mode): neither key's hex appears, in either case,
    # nor their bytes as Python or JSON would show them.
    rig, _ = _provisioned(root, KEY_A)
    _round(rig)
    rig.command(cmd="provision", key=KEY_B)  # refused: betting
    rig.enter_service()
    rig.command(cmd="provision", key=KEY_A)  # refused: in force
    rig.command(cmd="provision", key=KEY_B[:-1] + "g")  # refused: malformed
    rig.command(cmd="provision", key=KEY_B)
    rig.command(cmd="head", nonce=NONCE)
    rig.leave_service()
    _round(rig)
    for name in ("status", "meters"):
        rig.command(cmd=name)
    rig.command(cmd="head", nonce=NONCE)
    _log(rig)
    sent = 0
    for line in rig.lines:
        sent += 1
        for key in (KEY_A, KEY_B):
            _assert_not_in(line, key)
    assert sent >= 20, sent


def _assert_not_in(line, key):
    raw = _bytes(key)
    # Each half of the hex, in either case; the bytes as repr and JSON show them.
    shown_ways = (key[:32], key[32:], key.upper()[:32], key.upper()[32:], repr(raw)[2:40],
                  json.dumps(list(raw))[1:-1])
    for shown in shown_ways:
        assert shown not in line, "a line sent shows the key: %s" % line


@tmpdir.within
def test_head_says_where_the_kept_log_starts_under_the_key(root):
    # Its bounded log rotated (segments of 6 records, 3 kept): the head's
    # `dropped` is the records before the oldest the board still exports,
    # and the authenticator covers it, so the table's host cannot move the
    # log's start (issue 37).
    rig, _ = _provisioned(root)
    store = rig.table.bonus.store
    small_log(store, 6, 3)
    store.reserve_blocks = 2
    for _ in range(24):
        lock_collected(rig.table.bonus, [(6, True, 100)])
    answer = rig.command(cmd="head", nonce=NONCE)[-1]
    oldest = _log(rig)[0]["seq"]
    assert oldest > 1 and answer["dropped"] == oldest - 1, (oldest, answer)
    assert answer["auth"] == hmac_by_hand.head_auth(_bytes(KEY_A), answer["seq"],
                                                    answer["hash"], NONCE, oldest - 1)
    assert answer["auth"] != hmac_by_hand.head_auth(_bytes(KEY_A), answer["seq"],
                                                    answer["hash"], NONCE, 0)
