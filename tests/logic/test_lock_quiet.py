# What LOCK's time must not hold (docs/benchmarks.md, "LOCK with the record
# key"): the store's walk of the filesystem to measure its room, and a
# garbage collection. The table does both at its quiet moments instead, once
# a round's "locked" is out and when betting opens, and the room is then
# measured ahead of need, so LOCK's own check finds it counted; the count
# stays no more than the flash holds. The room tests run where littlefs is
# (the unix port); the table's quiet moments run on both runtimes.
import sys

import tmpdir
from collecting import collect, small_log
from table_rig import Rig

SEATS = [(seat, True, 500) for seat in range(1, 7)]


def _round(rig):
    for seat in range(1, 7):
        rig.chip(seat)
    rig.press_lock()
    for seat in range(1, 7):
        rig.chip(seat, False)
    rig.run(300)


@tmpdir.within
def test_the_table_collects_after_locked_is_out_and_when_betting_opens(root):
    rig = Rig(root)
    rig.configure("A1")
    seen = []  # (the table's state, the last line sent) at each collection
    rig.table.collect = lambda: seen.append((rig.table.state, rig.lines[-1]))
    _round(rig)
    locked = [line for line in rig.lines if '"locked"' in line]
    assert len(locked) == 1, rig.lines
    assert len(seen) == 2, seen
    # The first after the round's events were all sent (its last contribution's),
    # never before its "locked"; the second once the chips were lifted.
    assert seen[0][0] == "locked" and '"contribution"' in seen[0][1], seen
    assert seen[1][0] == "betting", seen


@tmpdir.within
def test_the_table_prepares_the_store_at_the_same_moments(root):
    rig = Rig(root)
    rig.configure("A1")
    calls = []
    prepare = rig.table.bonus.prepare
    rig.table.bonus.prepare = lambda: calls.append(rig.table.state) or prepare()
    _round(rig)
    _round(rig)
    assert calls == ["locked", "betting"] * 2, calls


if sys.implementation.name == "micropython":
    import os

    from mystery.bonus import MysteryBonus
    from mystery.meter import AWAITING_RESET, PENDING
    from mystery.store import Store
    from ramflash import BOARD_MOUNTS, FileChip, RamFlash

    MOUNT = "/quiet"
    BLOCKS = 64  # room for the reserve and a few commits: counted down to it often

    class Draws:
        # A1's lowest hit value: hits, validations and resets every few rounds.
        def __call__(self, n):
            return b"\x00" * n

    def _free_bytes():
        stat = os.statvfs(MOUNT)
        return stat[1] * stat[4]

    def _locks_measure(board, prepared):
        # How many LOCKs measured the room inside their own check, over 120
        # operations on a small flash; the count checked against the flash's.
        root = tmpdir.make()
        chip = FileChip(root + "/flash.bin", BLOCKS)
        os.VfsLfs2.mkfs(RamFlash(chip), **BOARD_MOUNTS[board])
        os.mount(os.VfsLfs2(RamFlash(chip), **BOARD_MOUNTS[board]), MOUNT)
        try:
            store = Store(MOUNT, segment_records=5, segments_kept=3)
            small_log(store, 5, 3)
            bonus = MysteryBonus(store, Draws())
            bonus.boot()
            bonus.configure("A1")
            measured = locks = 0
            for _ in range(120):
                collect(bonus)  # as the floor collects it, so the small log rotates
                if bonus.meter.phase == PENDING:
                    bonus.validate("jackpot_slip")
                elif bonus.meter.phase == AWAITING_RESET:
                    bonus.reset()
                else:
                    counted = store.log.room
                    assert store.room_problem() is None
                    measured += store.log.room is not counted
                    locks += 1
                    bonus.lock_round(SEATS)
                if prepared:
                    bonus.prepare()
                assert store.log.room.free <= _free_bytes(), (store.log.room.free,
                                                              _free_bytes())
            assert locks > 30, locks
            return measured
        finally:
            os.umount(MOUNT)
            chip.file.close()
            tmpdir.remove(root)

    def test_no_lock_measures_the_room_when_the_table_prepares_it_pico():
        assert _locks_measure("pico", False) > 3  # the walk would land in LOCKs
        assert _locks_measure("pico", True) == 0

    def test_no_lock_measures_the_room_when_the_table_prepares_it_esp32():
        assert _locks_measure("esp32", True) == 0
