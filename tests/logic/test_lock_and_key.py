# LOCK and the key switch read in the same tick. A LOCK is never dropped
# because of the key: a key turned in the same tick loses (the round locks,
# the turn is refused with an event saying so, and can be made again); a key
# released in the same tick returns the table to betting first, so the LOCK
# locks. A1: 2% of a $1 chip, 20,000 micro-dollars a seat (653b.1(c)(4)).
import tmpdir
from table_rig import Rig


@tmpdir.within
def test_lock_and_a_key_turn_in_one_tick_lock_the_round_and_refuse_the_turn(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(2)
    rig.lock.level = 1
    rig.key.level = 1
    rig.run(5)  # one tick reads both
    assert rig.table.state == "locked"
    assert [(e["seat"], e["amount"]) for e in rig.events("contribution")] == [(2, 20_000)]
    refused = rig.events("refused")
    assert len(refused) == 1, refused
    reason = refused[0]["reason"]
    assert "key" in reason and "LOCK" in reason and "again" in reason, reason
    rig.run(100)
    rig.lock.level = 0
    rig.key.level = 0
    rig.run(100)
    rig.chip(2, False)
    rig.run(300)
    assert rig.table.state == "betting"
    rig.key.level = 1  # turned again: service mode, as any turn in betting
    rig.run(50)
    assert rig.table.state == "service"


@tmpdir.within
def test_lock_pressed_as_the_key_is_released_locks_the_round(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(4)
    rig.key.level = 1
    rig.run(100)
    assert rig.table.state == "service"
    rig.key.level = 0
    rig.lock.level = 1
    rig.run(5)  # one tick reads both
    assert rig.table.state == "locked"
    assert [(e["seat"], e["amount"]) for e in rig.events("contribution")] == [(4, 20_000)]
    assert rig.events("refused") == []


@tmpdir.within
def test_a_key_turned_with_a_refused_lock_takes_the_table_to_service(root):
    # LOCK refused (here a full flash) locks nothing, so nothing wins over the
    # key: the turn takes the table to service mode, and the only refusal is
    # the LOCK's own.
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(2)
    rig.table.bonus.store.room_problem = lambda: "flash full: a test's"
    rig.lock.level = 1
    rig.key.level = 1
    rig.run(5)  # one tick reads both
    assert rig.table.state == "service"
    assert [e["reason"] for e in rig.events("refused")] == ["flash full: a test's"]
    assert rig.events("locked") == []


@tmpdir.within
def test_a_key_held_through_a_round_takes_the_table_to_service_at_its_end(root):
    # The key turned mid-round is not lost: the table says it waits for the
    # round's end, and goes to service mode then, the key still held.
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(3)
    rig.press_lock()
    assert rig.table.state == "locked"
    rig.key.level = 1
    rig.run(100)
    assert rig.table.state == "locked"
    reply = rig.command(cmd="set", name="reset", value="minimum")[-1]
    assert reply == {"ok": False, "error": "settings change only in service mode: the key is "
                     "held, and service mode begins when the round in play ends"}, reply
    reply = rig.command(cmd="config", mystery="B1")[-1]
    assert reply["error"].endswith("service mode begins when the round in play ends"), reply
    rig.chip(3, False)
    rig.run(300)
    assert rig.table.state == "service"
    rig.key.level = 0
    rig.run(100)
    assert rig.table.state == "betting"


@tmpdir.within
def test_a_key_released_before_the_rounds_end_leaves_the_table_betting(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(3)
    rig.press_lock()
    rig.turn_key()  # turned and released while the round is locked
    assert rig.table.state == "locked"
    reply = rig.command(cmd="set", name="reset", value="minimum")[-1]
    assert reply == {"ok": False, "error": "settings change only in service mode"}, reply
    rig.chip(3, False)
    rig.run(300)
    assert rig.table.state == "betting"
