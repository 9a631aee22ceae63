# A table left powered for weeks: ticks_ms wraps at 2**30 ms (12.4 days) as
# MicroPython's does, and ticks_diff is right only within 2**29 ms (6.2 days).
# After 30 simulated days in which some inputs were never touched, every
# input (each seat's chip and UTH sensor, LOCK, the key) acts at once, a
# round locks and ends, and the display keeps its turns across the wrap: the
# meter 4 s, "hit bY" 1.5 s, the maximum 2 s.
# A1: 2% of a $1 chip, 20,000 micro-dollars a seat (653b.1(c)(4)).
import tmpdir
from table_rig import Rig

DAY_MS = 24 * 3600 * 1000
IDLE_STEP_MS = 5 * 60_000 + 7  # the closed table's ticks, taken 5 minutes apart
TICK_MS = 5


def _idle(rig, ms):
    # Time passes with nothing touched; the display's history is let go.
    for _ in range(ms // IDLE_STEP_MS):
        rig.run(IDLE_STEP_MS, step=IDLE_STEP_MS)
        del rig.display.history[:]
    rig.run(ms % IDLE_STEP_MS, step=ms % IDLE_STEP_MS or 1)


def _round(rig, seats):
    before = len(rig.events("contribution"))
    for seat in seats:
        rig.chip(seat)
    rig.press_lock()
    assert [e["seat"] for e in rig.events("contribution")[before:]] == list(seats)
    for seat in seats:
        rig.chip(seat, False)
    rig.run(300)
    assert rig.table.state == "betting"


@tmpdir.within
def test_every_input_works_at_once_after_30_days_untouched(root):
    rig = Rig(root, now=(1 << 30) - 60_000)  # the first wrap a minute away
    rig.configure("A1")  # the key's last turn until the end
    _round(rig, (1, 2, 3))  # seats 1-3 played on day 0 only
    _idle(rig, 7 * DAY_MS)
    _round(rig, (4, 5, 6))  # seats 4-6 and LOCK last touched on day 7
    _idle(rig, 23 * DAY_MS)  # the UTH sensors: never touched at all

    before = len(rig.events("contribution"))
    for chip in rig.chips:  # six chips and one UTH wager lifted, in one tick
        chip.level = 1
    rig.uth[2].level = 0
    rig.run(TICK_MS)
    assert rig.lit(rig.bet_lights) == [1, 2, 3, 4, 5, 6]
    rig.lock.level = 1
    rig.run(TICK_MS)
    assert rig.table.state == "locked"
    locked = rig.events("contribution")[before:]
    assert [(e["seat"], e["amount"]) for e in locked] == [
        (1, 20_000), (2, 20_000), (4, 20_000), (5, 20_000), (6, 20_000)]
    rig.run(100)
    rig.lock.level = 0
    for chip in rig.chips:
        chip.level = 0
    rig.run(240)
    assert rig.table.state == "locked"  # under 250 ms clear: could be a flicker
    rig.run(20)
    assert rig.table.state == "betting"  # 250 ms clear: the round is over
    rig.key.level = 1
    rig.run(TICK_MS)
    assert rig.table.state == "service"
    rig.key.level = 0
    rig.run(50)
    rig.chip(6)  # a stuck sensor after the month: LOCK held 2 s reopens betting
    rig.press_lock()
    rig.press_lock(hold_ms=2100)
    assert rig.table.state == "betting"
    meters = rig.table.bonus.meters()
    assert meters["contributed"] == (3 + 3 + 5 + 1) * 20_000


@tmpdir.within
def test_the_display_keeps_its_turns_across_the_wrap(root):
    rig = Rig(root, now=(1 << 30) - 20_000)
    rig.configure("A1")
    changes = []  # (ms from here, text) each time the display changes
    shown = rig.display.text
    for step in range(40_000 // TICK_MS):
        rig.run(TICK_MS)
        if rig.display.text != shown:
            shown = rig.display.text
            changes.append((step * TICK_MS, shown))
    assert len(changes) >= 12
    shown_for = {}  # text -> how long each of its turns lasted
    for n in range(len(changes) - 1):
        shown_for.setdefault(changes[n][1], set()).add(changes[n + 1][0] - changes[n][0])
    assert shown_for == {"100.00": {4000}, "hit bY": {1500}, "200.00": {2000}}, shown_for
    order = [text for _, text in changes]
    start = order.index("100.00")
    assert order[start:start + 6] == ["100.00", "hit bY", "200.00"] * 2
