# Flash wear of the meter store, counted on the RAM flash device: block
# erases per round on a mature table, and the flash lifetime that implies at
# design.md's 1,500 rounds a day against its 20-year budget.
#
# Each board is measured with the littlefs parameters its MicroPython build
# mounts the filesystem with (they decide which files live inline in
# littlefs's metadata and what a commit costs), and with the meter carrying
# its full list of 25 recent hits, as it does for most of a table's life.
# MicroPython only: littlefs is the unix port's.
import sys

ROUNDS_A_DAY = 1500
ERASE_CYCLES = 100_000  # rated erase cycles of a NOR flash block
WEAR_BUDGET_YEARS = 20  # design.md
BLOCK_SIZE = 4096  # both boards' erase block
CHIP_BLOCKS = 16  # enough for the store; littlefs levels wear over the real chip's blocks

if sys.implementation.name == "micropython":
    import gc
    import os

    from mystery.bonus import MysteryBonus
    from mystery.meter import LAST_HITS, RUNNING
    from mystery.store import Store
    from ramflash import BOARD_MOUNTS, RamFlash, new_chip

    # (board, filesystem blocks, the keywords its _boot.py gives os.VfsLfs2)
    BOARDS = (
        ("Pico (RP2040), 848 KB filesystem", 212, BOARD_MOUNTS["pico"]),
        ("ESP32, default 2 MB filesystem partition", 512, BOARD_MOUNTS["esp32"]),
    )

    MOUNT = "/wear"
    SEATS = [(seat, True, 500) for seat in range(1, 7)]

    LOWEST = b"\x00"  # the first contribution hits
    HIGHEST = b"\x27\x0f"  # 9,999 cents above A1's minimum: no hit while wear is counted

    class Draws:
        # The board's random source, replaying one pattern.
        def __init__(self):
            self.pattern = LOWEST

        def __call__(self, n):
            return (self.pattern * n)[:n]

    def _mature_table(bonus, draws):
        # Hit, validate and reset until the meter keeps its full list of
        # recent hits, then start a cycle that will not hit.
        bonus.configure("A1", True)
        bonus.reset()
        while len(bonus.meter.last_hits) < LAST_HITS:
            bonus.lock_round(SEATS)
            bonus.validate("jackpot_slip")
            if len(bonus.meter.last_hits) == LAST_HITS:
                draws.pattern = HIGHEST
            bonus.reset()

    def _erases_per_round(mount_keywords, warm_up=50, rounds=100):
        blocks = new_chip(CHIP_BLOCKS, BLOCK_SIZE)
        os.VfsLfs2.mkfs(RamFlash(blocks), **mount_keywords)
        device = RamFlash(blocks)
        os.mount(os.VfsLfs2(device, **mount_keywords), MOUNT)
        try:
            draws = Draws()
            # A hit's clock as a board's: seconds since 1970.
            # The chip holds the store with little to spare, under a board's
            # reserve for a commit; the check for it writes nothing, so it
            # is off here (reserve 0).
            store = Store(MOUNT, segments_kept=2, reserve_blocks=0)
            bonus = MysteryBonus(store, draws, lambda: 1_795_000_000)
            assert bonus.boot() == []
            _mature_table(bonus, draws)
            for _ in range(warm_up):
                bonus.lock_round(SEATS)
            start = device.erases
            for _ in range(rounds):
                bonus.lock_round(SEATS)
            assert bonus.meter.phase == RUNNING and bonus.meter.hits == LAST_HITS
            assert bonus.store.dropped() > 0  # the log rotates its segments meanwhile
            return (device.erases - start) / rounds
        finally:
            os.umount(MOUNT)

    def test_flash_lifetime_on_each_board():
        # segments_kept=2 rather than the firmware's 8 keeps the chip small
        # enough for this heap; a round's commit costs the same either way.
        short = []
        for board, blocks, mount_keywords in BOARDS:
            gc.collect()
            per_round = _erases_per_round(mount_keywords)
            # littlefs spreads erases over every block, so a filesystem of B
            # blocks rated for ERASE_CYCLES each lasts B * ERASE_CYCLES erases.
            years = blocks * ERASE_CYCLES / (per_round * ROUNDS_A_DAY * 365)
            print("flash wear: %s, mounted %r: %.2f erases a round with %d recent hits kept; "
                  "%d blocks x %d erases: %.1f years at %d rounds a day (budget %d)"
                  % (board, mount_keywords, per_round, LAST_HITS, blocks, ERASE_CYCLES, years,
                     ROUNDS_A_DAY, WEAR_BUDGET_YEARS))
            if years < WEAR_BUDGET_YEARS:
                short.append(board)
        assert not short, "flash lifetime under design.md's budget on %s" % ", ".join(short)
