# No output path shows a live hit value: over a long run with hits, every
# event, log record, meter read-out and error is searched for the value of
# the cycle in progress (in micro-dollars and in cents) and for its salt.
# The only place they may appear is the hit event that ends their cycle.
# On a board whose generator is seeded (mystery/drbg.py) the search covers
# the generator's state as well: every state it has had, in pieces of 16 hex
# digits, and the host's randomness it was seeded from, appear nowhere at all.
import os
import sys

import tmpdir
from collecting import lock_collected
from lcg import Lcg
from leaks import leaks as _leaks_of
from mystery.bonus import MysteryBonus
from mystery.meter import Refused
from mystery.store import Store

HOST = "9e" * 32  # the technician's host's randomness, for the seeded run
_hidden = []  # what must appear nowhere: [HOST] and the generator's states, in pieces


def _leaks(value, secrets, salt):
    return _leaks_of(value, secrets, salt, _hidden)


def _note_state(bonus):
    state = bonus.store.drbg
    if state is not None:
        for part in state.to_record()[:2]:
            _hidden.extend(part[at:at + 16] for at in range(0, len(part), 16))


def _secrets(bonus):
    value = bonus.meter._hit_value
    return (value, value // 10_000), bonus.meter._salt


def _seats(rng):
    return [(seat, rng.below(4) != 0, 100 * (1 + rng.below(10))) for seat in range(1, 7)]


def _play(bonus, rng, rounds):
    outputs = hits = 0
    for _ in range(rounds):
        secrets, salt = _secrets(bonus)
        records = lock_collected(bonus, _seats(rng))
        for record in records:
            if record["ev"] == "hit":
                assert record["hit_value"] == secrets[0] and record["salt"] == salt
                hits += 1
                continue
            assert not _leaks(record, secrets, salt), record
        outputs += len(records) + _probe(bonus, secrets, salt)
        if bonus.meter.phase == "pending":
            outputs += _pay_and_reset(bonus)
    return outputs, hits


def _probe(bonus, secrets, salt):
    # Read-outs and refusals a host could provoke at any moment.
    shown = [bonus.meters(), bonus.store.warnings]
    # (Z9 names no configuration: refused at a reset as well as in a cycle.)
    for call, args in ((bonus.configure, ("Z9",)), (bonus.validate, ("cash",))):
        try:
            call(*args)
        except Refused as error:
            shown.append(str(error))
    assert not _leaks(shown, secrets, salt), shown
    return len(shown)


def _pay_and_reset(bonus):
    records = bonus.validate("jackpot_slip") + bonus.reset()
    _note_state(bonus)
    secrets, salt = _secrets(bonus)  # the new cycle's secret
    assert not _leaks(records, secrets, salt), records
    return len(records)


def _no_output_shows_a_live_secret(seeded, rounds):
    root = tmpdir.make()
    del _hidden[:]
    try:
        bonus = MysteryBonus(Store(root), os.urandom)
        bonus.boot()
        if seeded:
            _hidden.append(HOST)
            assert not _leaks(bonus.seed(HOST), (), "-")
            _note_state(bonus)
        bonus.configure("B1")  # 5%: a hit every few hundred rounds
        bonus.reset()
        _note_state(bonus)
        outputs, hits = _play(bonus, Lcg(11), rounds)
        secrets, salt = _secrets(bonus)
        for record in bonus.log_since(0):
            assert not _leaks(record, secrets, salt), record
        assert hits >= 3 and outputs > 4 * rounds, (hits, outputs)
        assert len(_hidden) >= (8 * (hits + 2) + 1 if seeded else 0), len(_hidden)
    finally:
        tmpdir.remove(root)


def test_no_output_shows_a_live_hit_value():
    _no_output_shows_a_live_secret(False, 2500)


def test_no_output_shows_a_live_hit_value_or_the_generators_state():
    _no_output_shows_a_live_secret(True, 2500)


# The same search on a failing flash: the power cut at every flash operation
# of the round that hits, or the flash filled before it, through the whole
# controller and host link (secrecy_flash_script.py). A process of its own
# with the board's heap, as the power-cut proof; MicroPython only (littlefs
# and the viper flash device are the unix port's).
if sys.implementation.name == "micropython":
    from board_heap import heapsize

    def _on_a_failing_flash(board):
        command = "MICROPYPATH=%s %s -X heapsize=%s tests/logic/secrecy_flash_script.py %s" % (
            os.getenv("MICROPYPATH") or "firmware:tests/logic", sys.executable, heapsize(), board)
        status = os.system(command)
        assert status == 0, "the secrecy proof on a failing flash failed (%s: status %d)" % (
            command, status)

    def test_no_output_shows_a_live_hit_value_on_a_failing_flash_with_the_picos_littlefs():
        _on_a_failing_flash("pico")

    def test_no_output_shows_a_live_hit_value_on_a_failing_flash_with_the_esp32s_littlefs():
        _on_a_failing_flash("esp32")
