# A restart in the middle of a round (power cut, watchdog, Ctrl-C and Ctrl-D)
# forgets that the round was locked. The chips still on their spots may
# already have been charged: none of them may qualify again until it is lifted
# and placed again, and its bet light blinks meanwhile. Expected amounts from
# 653b.1(c)(4): A1 takes 2% of a $1 chip, 20,000 micro-dollars a seat.
import tmpdir
from table_rig import Rig

MILLION = 1_000_000
A1_SEAT = 20_000


def _contributions(rig):
    return [(e["round"], e["seat"]) for e in rig.events("contribution")]


def _blinks(rig, ms):
    # Each seat's bet light sampled every tick for `ms`: its on/off changes.
    changes = [0] * len(rig.bet_lights)
    last = [light.level for light in rig.bet_lights]
    for _ in range(ms // 5):
        rig.run(5)
        for n, light in enumerate(rig.bet_lights):
            if light.level != last[n]:
                changes[n] += 1
                last[n] = light.level
    return changes


@tmpdir.within
def test_chips_on_the_spots_at_a_restart_count_once_placed_again(root):
    rig = Rig(root)
    rig.configure("A1")
    for seat in (1, 2, 3):
        rig.chip(seat)
    rig.press_lock()
    assert _contributions(rig) == [(1, 1), (1, 2), (1, 3)]

    again = Rig(root, chips=(1, 2, 3))  # the power comes back; the chips never moved
    assert again.table.state == "betting"
    again.press_lock()  # the dealer locks the same chips again
    assert [e["round"] for e in again.events("locked")] == [2]
    assert _contributions(again) == []
    assert again.table.bonus.meters()["meter"] == 100 * MILLION + 3 * A1_SEAT
    assert again.command(cmd="status")[-1]["stale_chips"] == [1, 2, 3]

    for seat in (1, 2, 3):  # the round is settled: the chips are taken
        again.chip(seat, False)
    again.run(300)
    assert again.table.state == "betting" and again.table.stale_chips == []
    for seat in (2, 3):  # the next round's chips count
        again.chip(seat)
    assert again.lit(again.bet_lights) == [2, 3]  # steady, not blinking
    again.press_lock()
    assert _contributions(again) == [(3, 2), (3, 3)]
    assert again.table.bonus.meters()["meter"] == 100 * MILLION + 5 * A1_SEAT


@tmpdir.within
def test_a_chip_from_before_the_restart_blinks_its_bet_light(root):
    rig = Rig(root)
    rig.configure("A1")
    again = Rig(root, chips=(2, 5))
    again.run(100)
    # 2 Hz: about four changes a second on the chips' seats, none elsewhere.
    changes = _blinks(again, 1000)
    assert [changes[n] for n in (1, 4)] == [4, 4], changes
    assert [changes[n] for n in (0, 2, 3, 5)] == [0, 0, 0, 0], changes
    again.chip(2, False)
    again.chip(2)  # lifted and placed again: lit steadily, and it counts
    assert _blinks(again, 1000)[1] == 0 and again.bet_lights[1].level == 1
    assert _blinks(again, 1000)[4] == 4
    again.press_lock()
    assert _contributions(again) == [(1, 2)]


@tmpdir.within
def test_holding_lock_still_reopens_betting_over_chips_from_before_a_restart(root):
    rig = Rig(root)
    rig.configure("A1")
    again = Rig(root, chips=(4,))  # a sensor that reads a chip from power-on, and stays
    again.press_lock()
    assert again.table.state == "locked"
    again.press_lock(hold_ms=2500)  # the dealer reopens betting by hand, as documented
    assert again.table.state == "betting"
    again.press_lock()
    assert [e["round"] for e in again.events("locked")] == [1, 2]
    assert _contributions(again) == []  # never lifted: never charged
