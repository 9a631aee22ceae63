# The program check at every start (docs/threat-model.md, "The program at
# start"; 9 NYCRR 5321.18(b)(3)(iv)): the board hashes the program it runs
# and compares the digest with the one a technician accepted in service mode.
# A different program is a fault (FAULt, a `fault` event naming both digests,
# LOCK refused) until a technician accepts it with the key held, in a signed
# `program` record naming the old digest and the new. A board with none
# accepted yet plays on and says so. Digests are worked here from hashlib over
# the program's bytes, authenticate's bytes with no seed before them.
import binascii
import hashlib

import hmac_by_hand
import tmpdir
from table.meter_text import FAULT
from table_rig import Rig

KEY = "00112233445566778899aabbccddeeff" * 2
RELEASE_1 = [b"lib/board.mpy\n5\n", b"board", b"main.py\n4\n", b"main"]
RELEASE_2 = [b"lib/board.mpy\n5\n", b"BOARD", b"main.py\n4\n", b"main"]


def _program(pieces):
    return lambda: ("files", iter(pieces), [])


def _unreadable():
    raise OSError(2)


def _sha256(pieces):
    return binascii.hexlify(hashlib.sha256(b"".join(pieces)).digest()).decode()


def _keyed(root, pieces=RELEASE_1):
    # A configured table given its record key in service mode, the key still held.
    rig = Rig(root, program=_program(pieces))
    rig.configure("A1")
    rig.enter_service()
    assert rig.command(cmd="provision", key=KEY)[-1]["ok"]
    return rig


def _accepted(root, pieces=RELEASE_1):
    rig = _keyed(root, pieces)
    reply = rig.command(cmd="accept_program")[-1]
    assert reply["ok"], reply
    rig.leave_service()
    return rig, reply


def _log(rig):
    return [reply["record"] for reply in rig.command(cmd="log", since=0) if "record" in reply]


def _lock_a_round(rig):
    # A chip on seat 2 and LOCK: the log's head after it.
    seq = rig.table.bonus.store.head_seq
    rig.chip(2)
    rig.press_lock()
    return seq, rig.table.bonus.store.head_seq


@tmpdir.within
def test_a_board_with_no_program_accepted_yet_plays_and_says_so(root):
    rig = Rig(root, program=_program(RELEASE_1))
    rig.configure("A1")
    status = rig.command(cmd="status")[-1]
    assert status["program"] == {"check": "not_accepted", "kind": "files",
                                 "digest": _sha256(RELEASE_1), "accepted": None,
                                 "check_ms": None}  # a table given no clock: not timed
    assert rig.events("fault") == []
    before, after = _lock_a_round(rig)
    assert after == before + 1 and rig.table.state == "locked"


@tmpdir.within
def test_a_program_is_accepted_only_in_service_mode_and_with_a_record_key(root):
    rig = Rig(root, program=_program(RELEASE_1))
    rig.configure("A1")
    seq = rig.table.bonus.store.head_seq
    betting = rig.command(cmd="accept_program")[-1]
    assert not betting["ok"] and "service mode" in betting["error"], betting
    rig.enter_service()
    unkeyed = rig.command(cmd="accept_program")[-1]
    assert not unkeyed["ok"] and "record key" in unkeyed["error"], unkeyed
    # Service mode entered is the one record since.
    assert rig.table.bonus.store.head_seq == seq + 1 and rig.events("program") == []


@tmpdir.within
def test_an_acceptance_is_a_signed_program_record_naming_the_digests(root):
    rig, reply = _accepted(root)
    digest = _sha256(RELEASE_1)
    assert (reply["digest"], reply["was"]) == (digest, None)
    record, left = _log(rig)[-2:]  # (service mode left after it)
    assert (record["seq"], left["ev"]) == (reply["seq"], "service")
    assert (record["ev"], record["was"], record["digest"], record["kind"]) == \
        ("program", None, digest, "files")
    key = binascii.unhexlify(KEY)
    assert record["auth"] == hmac_by_hand.record_auth(key, record)
    status = rig.command(cmd="status")[-1]["program"]
    assert (status["check"], status["accepted"]) == ("accepted", digest)
    rig.enter_service()
    again = rig.command(cmd="accept_program")[-1]
    assert not again["ok"] and "already" in again["error"], again


@tmpdir.within
def test_the_accepted_program_restarted_plays(root):
    _accepted(root)
    rig = Rig(root, program=_program(RELEASE_1))
    assert rig.table.state == "betting" and rig.events("fault") == []
    assert rig.command(cmd="status")[-1]["program"]["check"] == "accepted"
    before, after = _lock_a_round(rig)
    assert after == before + 1


@tmpdir.within
def test_a_changed_program_is_a_fault_that_refuses_lock_and_rounds(root):
    _accepted(root)
    rig = Rig(root, program=_program(RELEASE_2))
    assert rig.table.state == "fault" and rig.display.text == FAULT
    fault = rig.events("fault")
    assert len(fault) == 1 and "program" in fault[0]["reason"], fault
    assert (fault[0]["program"], fault[0]["accepted"]) == (_sha256(RELEASE_2),
                                                             _sha256(RELEASE_1))
    before, after = _lock_a_round(rig)
    assert after == before and rig.table.state == "fault" and rig.events("locked") == []
    status = rig.command(cmd="status")[-1]
    assert status["program"]["check"] == "changed" and "program" in status["fault"]
    seated = rig.command(cmd="round", seats=[])[-1]
    assert not seated["ok"] and "fault" in seated["error"], seated


@tmpdir.within
def test_the_changed_program_is_accepted_with_the_key_held_and_then_plays(root):
    _accepted(root)
    rig = Rig(root, program=_program(RELEASE_2))
    unheld = rig.command(cmd="accept_program")[-1]
    assert not unheld["ok"] and rig.table.state == "fault", unheld
    rig.key.level = 1
    rig.run(100)
    reply = rig.command(cmd="accept_program")[-1]
    assert reply["ok"], reply
    assert (reply["was"], reply["digest"]) == (_sha256(RELEASE_1), _sha256(RELEASE_2))
    assert rig.table.state == "service"
    rig.leave_service()
    assert rig.table.state == "betting"
    before, after = _lock_a_round(rig)
    assert after == before + 1
    restarted = Rig(root, program=_program(RELEASE_2))
    assert restarted.table.state != "fault" and restarted.events("fault") == []


@tmpdir.within
def test_a_program_that_cannot_be_read_is_a_fault(root):
    _accepted(root)
    rig = Rig(root, program=_unreadable)
    assert rig.table.state == "fault" and rig.display.text == FAULT
    assert "cannot be read" in rig.events("fault")[0]["reason"]
    rig.key.level = 1
    rig.run(100)
    reply = rig.command(cmd="accept_program")[-1]
    assert not reply["ok"] and "could not be read" in reply["error"], reply


@tmpdir.within
def test_the_accepted_digest_is_kept_across_a_validation_and_a_setting(root):
    # The hits copy that keeps it is rewritten by both: each keeps the digest.
    _accepted(root)
    rig = Rig(root, program=_program(RELEASE_1))
    hits_seq = rig.table.bonus.store.hits_seq
    rig.table.bonus.change_setting("reset", "minimum")  # the bonus's own, whenever it applies
    assert rig.table.bonus.store.hits_seq == hits_seq + 1
    restarted = Rig(root, program=_program(RELEASE_2))
    assert restarted.table.state == "fault"


@tmpdir.within
def test_each_start_is_a_record_naming_the_program_and_the_reset_cause(root):
    new = Rig(root, program=_program(RELEASE_1), reset_cause="pwron_reset")
    assert _log(new) == []  # a new board: its first record is still to come
    new.configure("A1")
    first = Rig(root, program=_program(RELEASE_1), reset_cause="pwron_reset")
    second = Rig(root, program=_program(RELEASE_2), reset_cause="wdt_reset")
    starts = [(r["program"], r["cause"]) for r in _log(second) if r["ev"] == "start"]
    assert starts == [(_sha256(RELEASE_1), "pwron_reset"), (_sha256(RELEASE_2), "wdt_reset")]
    assert [e["ev"] for e in first.events() if e["ev"] == "start"] == ["start"]
    unreadable = Rig(root, program=_unreadable)
    last = _log(unreadable)[-1]
    assert (last["ev"], last["program"], last["cause"]) == ("start", None, None)


@tmpdir.within
def test_a_board_that_names_no_program_records_no_start(root):
    # The logic rig's other tests: no program, no check and no record.
    rig = Rig(root)
    assert rig.table.bonus.store.head_seq == 0 and "program" not in rig.command(cmd="status")[-1]


@tmpdir.within
def test_the_check_is_timed_on_the_boards_clock(root):
    # The board's clock (app.build gives the table its ticks_ms) read before
    # and after the check: a reader whose pieces take 7 ms and 5 ms of it
    # makes a check of 12 ms, in `status`, whatever the host's own time.
    clock = [1_000]

    def ticks_ms():
        return clock[0]

    def pieces():
        for n, piece in enumerate(RELEASE_1):
            clock[0] += (7, 0, 5, 0)[n]
            yield piece

    rig = Rig(root)
    rig.table.program = lambda: ("files", pieces(), [])
    rig.table.ticks_ms = ticks_ms
    rig.table.start(rig.now)
    program = rig.command(cmd="status")[-1]["program"]
    assert (program["check"], program["check_ms"]) == ("not_accepted", 12), program
