# The room the store counts on (eventlog.py, "the room on the flash"): measured
# once, then taken down by each commit, it must never be more than littlefs
# measures, through rounds, hits, validations, resets, a configuration change
# and the log's segments coming and going, on a flash small enough that the
# count runs under the reserve and is measured again many times. And a full
# flash is refused only on a fresh measurement, so space freed counts at once.
# MicroPython only: littlefs is the unix port's.
import sys

if sys.implementation.name == "micropython":
    import os

    import tmpdir
    from collecting import collect, small_log
    from mystery.bonus import MysteryBonus
    from mystery.meter import AWAITING_RESET, PENDING, UNCONFIGURED, Refused
    from mystery.store import Store
    from ramflash import BOARD_MOUNTS, FileChip, RamFlash

    MOUNT = "/room"
    BLOCKS = 40  # the store and a few commits' reserve: measured again every few commits
    SEATS = [(seat, True, 500) for seat in range(1, 7)]

    class Draws:
        # A1's lowest hit value ($100.00): the first contribution of a cycle
        # hits, so hits, validations and resets come every few operations.
        def __call__(self, n):
            return b"\x00" * n

    def _free_bytes():
        stat = os.statvfs(MOUNT)
        return stat[1] * stat[4]

    def _mounted(board):
        # The flash's bytes in a file: a board-sized heap has no room for them.
        root = tmpdir.make()
        chip = FileChip(root + "/flash.bin", BLOCKS)
        os.VfsLfs2.mkfs(RamFlash(chip), **BOARD_MOUNTS[board])
        os.mount(os.VfsLfs2(RamFlash(chip), **BOARD_MOUNTS[board]), MOUNT)
        return root, chip

    def _unmounted(root, chip):
        os.umount(MOUNT)
        chip.file.close()
        tmpdir.remove(root)

    def _operate(bonus, step):
        if bonus.meter.phase == UNCONFIGURED:  # a new store's first commit makes the log
            return bonus.configure("A1")
        if bonus.meter.phase == PENDING:
            return bonus.validate("jackpot_slip")
        if bonus.meter.phase == AWAITING_RESET:
            return bonus.reset()
        if step == 60:  # a configuration change at a reset
            return bonus.configure("B1")
        return bonus.lock_round(SEATS if step % 3 else SEATS[:1])

    def _count_never_passes_the_flash(board):
        flash = _mounted(board)
        try:
            store = Store(MOUNT, segment_records=5, segments_kept=3)
            small_log(store, 5, 3)
            bonus = MysteryBonus(store, Draws())
            assert bonus.boot() == []
            measured, kinds = 0, set()
            for step in range(150):
                collect(bonus)  # as the floor collects it, so the small log rotates
                counted = store.log.room
                assert store.room_problem() is None, store.room_problem()
                measured += store.log.room is not counted  # a fresh measurement
                kinds.update(record["ev"] for record in _operate(bonus, step))
                assert store.log.room.free <= _free_bytes(), (step, store.log.room.free,
                                                              _free_bytes())
            assert store.dropped() > 0  # segments were removed meanwhile
            assert {"round", "hit", "validated", "reset", "config"} <= kinds, kinds
            assert 10 < measured < 150, measured  # counted down, and measured again
        finally:
            _unmounted(*flash)

    def test_the_room_counted_on_is_never_more_than_a_pico_flash_has():
        _count_never_passes_the_flash("pico")

    def test_the_room_counted_on_is_never_more_than_an_esp32_flash_has():
        _count_never_passes_the_flash("esp32")

    def test_a_count_under_the_reserve_is_measured_again_not_refused():
        flash = _mounted("pico")
        try:
            store = Store(MOUNT)
            bonus = MysteryBonus(store, Draws())
            bonus.boot()
            bonus.configure("A1")
            bonus.reset()
            # A reserve of all but 3 of the blocks free now: the count after a
            # commit (at least its reserve of 6 blocks off) is under it, but
            # a round adds far less.
            free = _free_bytes()
            store.reserve_blocks = free // 4096 - 3
            assert store.room_problem() is None
            bonus.lock_round(SEATS[:1])
            assert store.log.room.free <= free - 6 * 4096  # what the round was counted to take
            assert store.room_problem() is None  # measured: room
            assert store.log.room.free == _free_bytes() >= free - 3 * 4096
            # And a reserve of more than there is refused on the measurement.
            store.reserve_blocks = _free_bytes() // 4096 + 1
            try:
                bonus.lock_round(SEATS[:1])
                raise AssertionError("a round committed with less room than the reserve")
            except Refused as error:
                assert str(error) == "flash full: %d bytes free, a commit needs %d" % (
                    _free_bytes(), store.reserve_blocks * 4096)
        finally:
            _unmounted(*flash)
