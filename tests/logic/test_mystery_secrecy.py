# No output path shows a live hit value: over a long run with hits, every
# event, log record, meter read-out and error is searched for the value of
# the cycle in progress (in micro-dollars and in cents) and for its salt.
# The only place they may appear is the hit event that ends their cycle.
import os
import sys

import tmpdir
from lcg import Lcg
from leaks import leaks as _leaks
from mystery.bonus import MysteryBonus
from mystery.meter import Refused
from mystery.store import Store


def _secrets(bonus):
    value = bonus.meter._hit_value
    return (value, value // 10_000), bonus.meter._salt


def _seats(rng):
    return [(seat, rng.below(4) != 0, 100 * (1 + rng.below(10))) for seat in range(1, 7)]


def _play(bonus, rng, rounds):
    outputs = hits = 0
    for _ in range(rounds):
        secrets, salt = _secrets(bonus)
        records = bonus.lock_round(_seats(rng))
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
    secrets, salt = _secrets(bonus)  # the new cycle's secret
    assert not _leaks(records, secrets, salt), records
    return len(records)


def test_no_output_shows_a_live_hit_value():
    root = tmpdir.make()
    try:
        bonus = MysteryBonus(Store(root), os.urandom)
        bonus.boot()
        bonus.configure("B1")  # 5%: a hit every few hundred rounds
        bonus.reset()
        outputs, hits = _play(bonus, Lcg(11), 2500)
        secrets, salt = _secrets(bonus)
        for record in bonus.log_since(0):
            assert not _leaks(record, secrets, salt), record
        assert hits >= 3 and outputs > 10000, (hits, outputs)
    finally:
        tmpdir.remove(root)


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
