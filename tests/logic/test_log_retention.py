# No record leaves the board's log before it is collected (docs/mystery.md,
# "Collected"): the board warns at 75% of the log's room for uncollected
# records, refuses LOCK before one would have to go, still pays a pending
# hit, and moves its "collected" mark only on a confirmation it can trust:
# the floor's, authenticated with the record key (worked by hand here,
# hmac_by_hand.py), or one given with the key switch held. On today's main
# the log dropped its oldest segment whether collected or not.
import binascii

import hmac_by_hand
import tmpdir
from mystery.bonus import MysteryBonus
from mystery.meter import Refused
from mystery.store import Store
from table_rig import Rig

KEY = "00112233445566778899aabbccddeeff" * 2
OTHER_KEY = "f0e1d2c3b4a5968778695a4b3c2d1e0f" * 2
ROUND = [(1, True, 500), (2, True, 100)]
DISPLAY_FAULT = {"ev": "fault", "source": "display", "reason": "display: test"}
# The default log: 8 segments of 32 records, a commit at most 4 records: the
# oldest segment goes when a 9th begins, so 7 segments of at least 29 stay.
CAPACITY = 7 * (32 - 4 + 1)


def _refused(operation, *args):
    try:
        operation(*args)
    except Refused as error:
        return str(error)
    raise AssertionError("not refused: %r" % (operation,))


def _whole(bonus):
    # Every record from 1 to the head still kept, chained, none lost.
    seqs = [record["seq"] for record in bonus.log_since(0)]
    assert seqs == list(range(1, bonus.store.head_seq + 1)), (seqs[:3], seqs[-3:])
    assert bonus.meters()["log_dropped"] == 0


def _bonus(root, draws):
    bonus = MysteryBonus(Store(root), draws)
    assert bonus.boot() == []
    bonus.configure("A1")
    bonus.reset()
    return bonus


def _high(n):
    return (b"\x27\x0f" * 9)[:n]  # A1's highest hit value: no round hits


@tmpdir.within
def test_lock_is_refused_before_an_uncollected_record_would_go(root):
    bonus = _bonus(root, _high)
    assert bonus.store.capacity() == CAPACITY
    locked = 0
    while True:
        try:
            bonus.lock_round(ROUND)
        except Refused as error:
            reason = str(error)
            break
        locked += 1
        assert locked < 400, "LOCK never refused"
    # Refused with room left for what a round already locked may still need.
    assert reason.startswith("the log is full: "), reason
    assert CAPACITY - 14 < bonus.store.uncollected() <= CAPACITY, bonus.store.uncollected()
    _whole(bonus)
    # A round's side wagers, a display's fault: room left for them still.
    bonus.record_event(dict(DISPLAY_FAULT))
    _whole(bonus)


@tmpdir.within
def test_a_hit_is_payable_on_a_log_too_full_to_lock(root):
    # The lowest hit value (the first contribution hits), the log filled with
    # display faults up to the last LOCK it allows: that LOCK hits, and its
    # validation and the reset go through; LOCK is then refused, nothing lost.
    bonus = _bonus(root, lambda n: bytes(n))
    while bonus.store.uncollected() + 14 <= CAPACITY - 1:
        bonus.record_event(dict(DISPLAY_FAULT))
    records = bonus.lock_round(ROUND)
    assert [r["ev"] for r in records][:2] == ["round", "hit"], records
    validation = bonus.validate("jackpot_slip")
    assert [r["ev"] for r in validation][:2] == ["validated", "paid"], validation
    bonus.reset()
    assert _refused(bonus.lock_round, ROUND).startswith("the log is full: ")
    # A display's faults go on being records until the room a hit needs is
    # reached, then are refused (the controller sends them as events alone).
    for _ in range(CAPACITY):
        try:
            bonus.record_event(dict(DISPLAY_FAULT))
        except Refused as error:
            assert str(error).startswith("the log is full: ")
            break
    assert bonus.store.uncollected() <= CAPACITY - 5
    _whole(bonus)


@tmpdir.within
def test_the_warning_is_a_record_once_at_three_quarters(root):
    bonus = _bonus(root, _high)
    warnings = []
    while bonus.store.uncollected() < CAPACITY * 3 // 4 + 5:
        warnings += [r for r in bonus.lock_round(ROUND) if r["ev"] == "log_warning"]
    assert len(warnings) == 1, warnings
    [warning] = warnings
    # Said in the commit that reached 75%: a round's record, the warning.
    assert warning["capacity"] == CAPACITY
    assert CAPACITY * 3 // 4 <= warning["uncollected"] <= CAPACITY * 3 // 4 + 1, warning
    assert warning["uncollected"] == warning["seq"]  # nothing collected yet: seq = count
    assert bonus.log_warning()


def _provisioned(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.enter_service()
    assert rig.command(cmd="provision", key=KEY)[-1]["ok"]
    rig.leave_service()
    return rig


def _confirmation(rig, seq, key=KEY):
    record_hash = rig.table.bonus.store.record_hash(seq)
    return {"cmd": "collected", "seq": seq,
            "auth": hmac_by_hand.collected_auth(binascii.unhexlify(key), seq, record_hash)}


def _play(rig, rounds):
    for _ in range(rounds):
        rig.table.bonus.lock_round(ROUND)


@tmpdir.within
def test_the_floors_confirmation_moves_the_mark_and_a_forged_one_does_not(root):
    rig = _provisioned(root)
    _play(rig, 10)
    store = rig.table.bonus.store
    head = store.head_seq
    # Forged by a host without the key: another key, another record's hash,
    # a confirmation for record 5 sent for record 8, one altered.
    forged = [_confirmation(rig, 8, OTHER_KEY)]
    moved = _confirmation(rig, 5)
    moved["seq"] = 8
    forged.append(moved)
    altered = _confirmation(rig, 8)
    altered["auth"] = ("0" if altered["auth"][0] != "0" else "1") + altered["auth"][1:]
    forged.append(altered)
    unsigned = {"cmd": "collected", "seq": 8}
    for command in forged + [unsigned]:
        reply = rig.command(**command)[-1]
        assert not reply["ok"], reply
        assert store.mark.seq == 0, command
    assert "key switch" in rig.command(**unsigned)[-1]["error"]
    past = _confirmation(rig, head)
    past["seq"] = head + 1
    assert "not committed" in rig.command(**past)[-1]["error"]
    reply = rig.command(**_confirmation(rig, 8))[-1]
    assert reply == {"ok": True, "reply": "collected", "collected": 8,
                     "uncollected": head - 8, "capacity": CAPACITY}, reply
    # Sent again, or an older one replayed: nothing moves back.
    assert rig.command(**_confirmation(rig, 3))[-1]["collected"] == 8
    # Kept across a restart, and in the meters.
    again = Rig(root)
    assert again.table.bonus.store.mark.seq == 8
    meters = again.command(cmd="meters")[-1]["meters"]
    assert (meters["log_collected"], meters["log_uncollected"], meters["log_dropped"]) == (
        8, head - 8, 0)


@tmpdir.within
def test_an_unsigned_confirmation_needs_the_key_switch_and_a_keyless_board_no_other(root):
    rig = Rig(root)
    rig.configure("A1")
    _play(rig, 4)
    head = rig.table.bonus.store.head_seq
    signed = {"cmd": "collected", "seq": head, "auth": "0" * 64}
    assert "no record key" in rig.command(**signed)[-1]["error"]
    assert not rig.command(cmd="collected", seq=head)[-1]["ok"]
    rig.enter_service()
    assert "no record key" in rig.command(**signed)[-1]["error"]
    reply = rig.command(cmd="collected", seq=head)[-1]
    assert reply["ok"] and reply["collected"] == head, reply
    rig.leave_service()
    assert rig.table.bonus.store.mark.seq == head


@tmpdir.within
def test_a_refused_lock_is_an_event_and_collection_lets_play_go_on(root):
    rig = _provisioned(root)
    bonus = rig.table.bonus
    while True:
        try:
            bonus.lock_round(ROUND)
        except Refused:
            break
    rig.run(100)
    assert rig.display.text == "LoG FuLL" or any(
        rig.display.text == "LoG FuLL" for _ in _ticks(rig, 9000))
    before = bonus.store.head_seq
    rig.chip(2)
    rig.press_lock()
    [refusal] = rig.events("refused")[-1:]
    assert refusal["reason"].startswith("the log is full: "), refusal
    assert rig.table.state == "betting" and bonus.store.head_seq == before
    # The floor stored it all: its confirmation at the head, and LOCK locks.
    assert rig.command(**_confirmation(rig, before))[-1]["ok"]
    assert not bonus.log_warning()
    rig.chip(2, False)
    rig.run(300)
    rig.chip(2)
    rig.press_lock()
    assert rig.table.state == "locked", rig.table.state
    assert bonus.meters()["log_dropped"] == 0


def _ticks(rig, ms):
    # The display's turns go round: its text after each 100 ms.
    for _ in range(ms // 100):
        rig.run(100)
        yield rig.display.text
