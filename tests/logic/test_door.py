# The controller compartment's door (25 CFR 547.10(b); 13:69E-1.39C(b)(5)):
# its opening is detected and logged and play is disabled (LOCK refused)
# while it stands open; its closing is logged. A round already locked plays
# out and a pending hit is validated and paid (docs/mystery.md, "The door").
# A switch that chatters makes at most two records in any CLOSE_MS.
import tmpdir
from expander_rig import ExpanderRig
from fakes import Pin
from lcg import Lcg
from mystery import chain
from table.door import CLOSE_MS, expander_input
from table_rig import Rig, scripted_hit

REFUSAL = "no LOCK while the controller's door is open: close it"
DOOR_PIN = (0x21, 3)  # U2 GPA3, as the Pico and ESP32 board files wire it


def _log(rig):
    return list(rig.table.bonus.log_since(0))


def _doors(rig):
    return [r["state"] for r in _log(rig) if r["ev"] == "door"]


def _status(rig):
    return rig.command(cmd="status")[-1]


def _door_rig(root, **options):
    door = Pin()
    rig = Rig(root, door=door, **options)
    return rig, door


@tmpdir.within
def test_an_open_door_is_logged_and_refuses_lock_until_it_is_closed(root):
    rig, door = _door_rig(root)
    rig.configure("A1")
    assert _status(rig)["door"] == "closed"
    door.level = 1
    rig.run(50)
    assert _doors(rig) == ["open"] and _status(rig)["door"] == "open"
    opened = [r for r in _log(rig) if r["ev"] == "door"][0]
    assert rig.events("door") == [opened] and chain.verify(_log(rig))[0]

    rig.chip(1)
    rig.press_lock()
    assert rig.table.bonus.meter.round == 0 and rig.table.state == "betting"
    assert rig.events("refused")[-1]["reason"] == REFUSAL

    door.level = 0
    rig.run(CLOSE_MS - 100)  # not yet: a closing counts once it has lasted CLOSE_MS
    assert _doors(rig) == ["open"] and _status(rig)["door"] == "open"
    rig.run(200)
    assert _doors(rig) == ["open", "closed"] and _status(rig)["door"] == "closed"
    assert rig.events("door")[-1]["state"] == "closed" and chain.verify(_log(rig))[0]
    rig.press_lock()
    assert rig.table.bonus.meter.round == 1


@tmpdir.within
def test_a_door_opened_in_the_same_tick_as_lock_refuses_it(root):
    rig, door = _door_rig(root)
    rig.configure("A1")
    rig.chip(1)
    door.level = 1
    rig.lock.level = 1
    rig.run(5)
    assert _doors(rig) == ["open"] and rig.table.bonus.meter.round == 0
    assert rig.events("refused")[-1]["reason"] == REFUSAL


@tmpdir.within
def test_a_chattering_switch_makes_one_opening_and_one_closing(root):
    # A loose door: its switch flips every 40 ms for ten seconds, then rests shut.
    rig, door = _door_rig(root)
    rig.configure("A1")
    for flip in range(250):
        door.level = flip % 2 == 0
        rig.run(40)
    door.level = 0
    rig.run(CLOSE_MS + 100)
    assert _doors(rig) == ["open", "closed"]


@tmpdir.within
def test_no_chatter_makes_more_than_two_records_a_close_period(root):
    # Shut and open spells of random lengths, some longer than CLOSE_MS: every
    # closing needs CLOSE_MS shut since the door last opened, and every opening
    # follows a closing, so T ms make at most 2 * (T // CLOSE_MS) + 1 records.
    rig, door = _door_rig(root)
    rig.configure("A1")
    random = Lcg(38)
    spent = 0
    while spent < 20 * CLOSE_MS:
        door.level = 1 - door.level
        spell = 5 + random.below(CLOSE_MS * 3 // 2)
        rig.run(spell - spell % 5)
        spent += spell - spell % 5
    doors = _doors(rig)
    assert 2 < len(doors) <= 2 * (spent // CLOSE_MS) + 1, (len(doors), spent)
    assert doors == ["open", "closed"] * (len(doors) // 2) + ["open"] * (len(doors) % 2)


@tmpdir.within
def test_a_locked_round_plays_out_and_the_next_lock_is_refused(root):
    rig, door = _door_rig(root)
    rig.configure("A1")
    rig.chip(1)
    rig.press_lock()
    assert rig.table.state == "locked"
    door.level = 1
    rig.run(50)
    rig.chip(1, False)
    rig.run(400)
    assert rig.table.state == "betting" and rig.table.bonus.meter.round == 1
    rig.chip(1)
    rig.press_lock()
    assert rig.table.bonus.meter.round == 1
    assert rig.events("refused")[-1]["reason"] == REFUSAL
    assert [r["ev"] for r in _log(rig)][-2:] == ["round", "door"]


@tmpdir.within
def test_a_pending_hit_is_validated_and_paid_with_the_door_open(root):
    # The award was won before the door opened: the floorperson's key pays it.
    rig, door = _door_rig(root, random_bytes=scripted_hit(0))  # the first contribution hits
    rig.configure("A1")
    rig.chip(1)
    rig.press_lock()
    assert rig.table.state == "hit_pending"
    door.level = 1
    rig.run(50)
    rig.turn_key()
    kinds = [r["ev"] for r in _log(rig)]
    assert kinds[kinds.index("hit"):] == ["hit", "door", "validated", "paid", "reset"]
    assert rig.table.bonus.meters()["hits"] == 1
    rig.chip(1, False)
    rig.run(400)
    rig.chip(1)
    rig.press_lock()
    assert rig.events("refused")[-1]["reason"] == REFUSAL


@tmpdir.within
def test_a_door_open_at_power_up_is_logged_at_start(root):
    rig, door = _door_rig(root)
    rig.configure("A1")
    door.level = 1
    again = Rig(root, door=door)
    assert _doors(again) == ["open"] and _status(again)["door"] == "open"
    again.chip(1)
    again.press_lock()
    assert again.table.bonus.meter.round == 0


@tmpdir.within
def test_a_board_without_a_door_switch_says_so_and_plays(root):
    rig = Rig(root)
    rig.configure("A1")
    assert _status(rig)["door"] is None
    rig.chip(1)
    rig.press_lock()
    assert rig.table.bonus.meter.round == 1


@tmpdir.within
def test_where_the_log_takes_no_record_the_door_is_still_sent_and_lock_refused(root):
    rig, door = _door_rig(root)
    rig.configure("A1")
    head = rig.table.bonus.store.head_seq
    rig.table.bonus.store.room_problem = lambda: "flash full: 0 bytes free"
    door.level = 1
    rig.run(50)
    event = rig.events("door")[-1]
    assert event == {"ev": "door", "state": "open"}
    assert rig.table.bonus.store.head_seq == head
    rig.chip(1)
    rig.press_lock()
    assert rig.events("refused")[-1]["reason"] == REFUSAL


@tmpdir.within
def test_the_door_on_an_expander_pin_and_a_cut_wire_reads_open(root):
    # The shut door holds its switch closed, pulling U2's GPA3 low; opened,
    # or its wire cut, the pin's pull-up reads high: open either way.
    rig = ExpanderRig(root, door=DOOR_PIN)
    rig.configure("A1")
    assert _status(rig)["door"] == "closed"
    rig.open_door()
    rig.run(50)
    assert _doors(rig) == ["open"]
    rig.chip(1)
    rig.press_lock()
    assert rig.table.bonus.meter.round == 0
    rig.open_door(False)
    rig.run(CLOSE_MS + 100)
    assert _doors(rig) == ["open", "closed"]
    rig.press_lock()
    assert rig.table.bonus.meter.round == 1


@tmpdir.within
def test_a_door_pin_on_a_seats_input_is_refused(root):
    rig = ExpanderRig(root)
    for address, bit in ((0x21, 2), (0x20, 4), (0x21, 9)):  # seat 7's bet, seat 1's UTH, GPB1
        try:
            expander_input(rig.table.io, address, bit)
        except ValueError:
            continue
        raise AssertionError("pin %d of 0x%02x taken as the door's" % (bit, address))
