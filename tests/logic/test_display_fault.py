# The LED meter watched (13:69E-1.39A(b)(2), 1.39B(g)): a TM1637 that stops
# acknowledging is a fault of the display; LOCK is refused while it stands,
# and its raising and its clearing are each a record of the signed log, sent
# as an event. A display with no readback (the MAX7219, fakes.Display) is
# unsensed and never faults. The chip is the bus model of test_displays.py,
# driven by the firmware's own TM1637 driver.
import tmpdir
from mystery import chain
from table.display_watch import CLEAR_CHECKS, PERIOD_MS
from table.tm1637 import Tm1637
from table_rig import Rig
from test_displays import Bus, BusPin


def _tm1637_rig(root):
    bus = Bus(True)
    display = Tm1637(BusPin(bus, True), BusPin(bus, False), delay_us=lambda us: None)
    return Rig(root, display=display), bus


def _unplug(bus, gone=True):
    bus.chip = not gone
    bus.acking = False
    bus.trace = bus.trace[-1:]  # only the lines' levels now are wanted


def _log(rig):
    return list(rig.table.bonus.log_since(0))


def _status(rig):
    return rig.command(cmd="status")[-1]


@tmpdir.within
def test_a_display_that_stops_acknowledging_refuses_lock_and_is_logged(root):
    rig, bus = _tm1637_rig(root)
    rig.configure("A1")
    assert (_status(rig)["display_fault"], _status(rig)["display_sensed"]) == (None, True)
    _unplug(bus)
    rig.run(PERIOD_MS + 100)  # the text stands still: the period's check hears it
    reason = _status(rig)["display_fault"]
    assert reason is not None and reason.startswith("display: the LED meter does not ack")
    raised = [r for r in _log(rig) if r["ev"] == "fault"]
    assert [(r["source"], r["reason"]) for r in raised] == [("display", reason)]
    assert rig.events("fault")[-1] == raised[-1] and chain.verify(_log(rig))[0]

    round_before = rig.table.bonus.meter.round
    rig.chip(1)
    rig.press_lock()
    assert rig.table.bonus.meter.round == round_before  # nothing locked, nothing charged
    assert rig.table.state == "betting"
    assert rig.events("refused")[-1]["reason"] == "no LOCK while the " + reason


@tmpdir.within
def test_the_fault_clears_once_the_display_answers_again_and_that_is_logged(root):
    rig, bus = _tm1637_rig(root)
    rig.configure("A1")
    _unplug(bus)
    rig.run(PERIOD_MS + 100)
    reason = _status(rig)["display_fault"]
    _unplug(bus, gone=False)
    rig.run(PERIOD_MS * (CLEAR_CHECKS + 1))
    assert _status(rig)["display_fault"] is None
    kinds = [(r["ev"], r.get("source"), r.get("reason")) for r in _log(rig)
             if r["ev"] in ("fault", "fault_cleared")]
    assert kinds == [("fault", "display", reason), ("fault_cleared", "display", reason)]
    assert rig.events("fault_cleared")[-1]["reason"] == reason
    rig.chip(1)
    rig.press_lock()
    assert rig.table.state == "locked" and rig.table.bonus.meter.round == 1


@tmpdir.within
def test_a_display_acknowledged_now_and_then_raises_once_not_every_check(root):
    # Flicker: one frame missed, one answered, never CLEAR_CHECKS in a row.
    rig, bus = _tm1637_rig(root)
    rig.configure("A1")
    for _ in range(4):
        _unplug(bus)
        rig.run(PERIOD_MS)
        _unplug(bus, gone=False)
        rig.run(PERIOD_MS)
    faults = [r["ev"] for r in _log(rig) if r["ev"] in ("fault", "fault_cleared")]
    assert faults == ["fault"]


@tmpdir.within
def test_a_display_with_no_readback_is_unsensed_and_never_faults(root):
    rig = Rig(root)  # fakes.Display: show() gives None, as the MAX7219's does
    rig.configure("A1")
    rig.run(PERIOD_MS * 3)
    assert (_status(rig)["display_fault"], _status(rig)["display_sensed"]) == (None, False)
    rig.chip(1)
    rig.press_lock()
    assert rig.table.bonus.meter.round == 1
    assert not [r for r in _log(rig) if r["ev"] == "fault"]


@tmpdir.within
def test_a_display_fault_survives_no_restart_but_is_heard_again_at_boot(root):
    # The fault is the display's, not the store's: a restart forgets it, and
    # the first frame after start finds it again.
    rig, bus = _tm1637_rig(root)
    rig.configure("A1")
    _unplug(bus)
    rig.run(PERIOD_MS + 100)
    again = Rig(root, display=rig.display)
    again.run(50)
    assert _status(again)["display_fault"] is not None
    records = [r["ev"] for r in _log(again) if r["ev"] in ("fault", "fault_cleared")]
    assert records == ["fault", "fault"]


@tmpdir.within
def test_where_the_log_takes_no_record_the_fault_is_still_sent_and_lock_refused(root):
    # A full flash refuses every commit before it writes: the fault goes out
    # as an event alone, and LOCK is refused all the same.
    rig, bus = _tm1637_rig(root)
    rig.configure("A1")
    head = rig.table.bonus.store.head_seq
    rig.table.bonus.store.room_problem = lambda: "flash full: 0 bytes free"
    _unplug(bus)
    rig.run(PERIOD_MS + 100)
    event = rig.events("fault")[-1]
    assert event["source"] == "display" and "seq" not in event
    assert rig.table.bonus.store.head_seq == head
    rig.chip(1)
    rig.press_lock()
    assert rig.table.bonus.meter.round == 0
    assert rig.events("refused")[-1]["reason"] == "no LOCK while the " + event["reason"]
