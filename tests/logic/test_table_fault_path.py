# The table's one path from a refusal to a fault (table/controller.py): a
# refusal the store caused is the store's fault, reported once as it happens,
# whether a LOCK, a key turn or a host's command met it; the state is FAULT
# from then on, whatever play was in, and the reason in `status` is the
# store's. The table reads its seats through debounced sensors of its own and
# leaves the board's wiring as it was given.

import tmpdir
from broken_writes import break_meter_writes
from mystery.bonus import MysteryBonus
from table import meter_text
from table.inputs import Debounced
from table_rig import Rig


def _lock_with_chip(rig, seat=1):
    rig.chip(seat)
    rig.press_lock()


@tmpdir.within
def test_the_board_wiring_keeps_the_pins_it_was_given(root):
    rig = Rig(root, chips=(2,))
    for n, seat in enumerate(rig.table.seats):
        assert seat.bet is rig.chips[n] and seat.uth is rig.uth[n]
    sensors = rig.table.sensors
    assert [seat.number for seat in sensors] == [1, 2, 3, 4, 5, 6]
    assert all(isinstance(seat.bet, Debounced) for seat in sensors)
    assert [seat.bet.state for seat in sensors] == [0, 1, 0, 0, 0, 0]
    assert rig.table.stale_chips == [2]


@tmpdir.within
def test_a_store_fault_at_lock_is_one_fault_event_and_no_refusal(root):
    rig = Rig(root)
    rig.configure("A1")
    break_meter_writes(root)
    _lock_with_chip(rig)
    faults = rig.events("fault")
    assert len(faults) == 1 and faults[0]["reason"].startswith("store write failed")
    assert rig.events("refused") == [] and rig.table.state == "fault"
    rig.press_lock()
    rig.turn_key()  # neither LOCK nor the key leaves a fault
    assert rig.table.state == "fault" and len(rig.events("fault")) == 1
    status = rig.command(cmd="status")[-1]
    assert status["state"] == "fault" and status["fault"] == faults[0]["reason"]
    assert rig.display.text == meter_text.FAULT


@tmpdir.within
def test_a_store_fault_in_a_host_command_is_its_error_and_one_fault_event(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.key.level = 1
    rig.run(100)  # service mode (its record written)
    break_meter_writes(root)
    reply = rig.command(cmd="set", name="wager_cents", value=300)[-1]
    faults = rig.events("fault")
    assert len(faults) == 1 and reply == {"ok": False, "error": faults[0]["reason"]}
    rig.key.level = 0
    rig.run(100)  # the key released: still the fault, never betting
    assert rig.table.state == "fault"
    again = rig.command(cmd="round", dealer=["Qs", "Ks"], board=["2c", "3d", "4h", "8s", "9c"],
                        seats=[{"seat": 1, "cards": ["Ah", "Kh"], "wagers": {}}])[-1]
    assert again["ok"] is False and again["error"].startswith("the table is in a fault (store")
    assert len(rig.events("fault")) == 1


@tmpdir.within
def test_a_store_fault_while_a_hit_is_validated_leaves_the_table_in_fault(root):
    # The validation commits; the reset after it cannot: the fault wins over
    # the locked round the validation would return to.
    rig = Rig(root, random_bytes=lambda n: b"\x00\x01" * (n // 2) + b"\x00" * (n % 2))
    rig.configure("A1")
    _lock_with_chip(rig)
    assert rig.table.state == "hit_pending", rig.table.state
    validated = rig.table.bonus.validate
    rig.table.bonus.validate = lambda *args: (validated(*args), break_meter_writes(root))[0]
    rig.turn_key()
    assert len(rig.events("validated")) == 1 and len(rig.events("fault")) == 1
    assert rig.table.state == "fault"


def _reset_with_writes_broken(root, reset):
    # The bonus's reset, made when the store can no longer write.
    def broken(bonus):
        break_meter_writes(root)
        return reset(bonus)
    return broken


@tmpdir.within
def test_a_reset_owed_at_boot_that_faults_leaves_the_table_in_fault(root):
    # A configuration committed and its reset not (the power went between):
    # the boot makes the reset, and when the store cannot write it the table
    # is in the store's fault, not betting.
    rig = Rig(root)
    reset = MysteryBonus.reset
    rig.table.bonus.reset = lambda: []  # the power goes before the reset
    rig.configure("A1")
    assert rig.table.bonus.meter.phase == "awaiting_reset"
    MysteryBonus.reset = _reset_with_writes_broken(root, reset)
    try:
        again = Rig(root)
    finally:
        MysteryBonus.reset = reset
    faults = again.events("fault")
    assert len(faults) == 1 and faults[0]["reason"].startswith("store write failed"), faults
    assert again.table.state == "fault"
    assert again.command(cmd="status")[-1]["state"] == "fault"
