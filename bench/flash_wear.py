# The flash's lifetime from erases counted on the emulated Pico (pico_bench.py's
# wear run: the real image's littlefs, rounds with hits validated and reset).
#
# As tests/logic/test_flash_wear.py assumes it: littlefs spreads erases over
# every block of its filesystem, so a filesystem of B blocks rated for C erase
# cycles each lasts B x C erases; at design.md's 1,500 rounds a day.
ROUNDS_A_DAY = 1500
ERASE_CYCLES = 100_000  # W25Q16JV: minimum 100,000 program/erase cycles a sector
FS_SECTORS = 352  # the rp2 image's littlefs: 1408 KiB of 4 KB sectors
WEAR_FLOOR_YEARS = 20  # design.md
RAM_FLASH_YEARS = 25.8  # tests/logic/test_flash_wear.py, Pico mount, 212 blocks


def lifetime(sectors_erased, rounds, fs_sectors=FS_SECTORS):
    per_round = sectors_erased / rounds
    years = fs_sectors * ERASE_CYCLES / (per_round * ROUNDS_A_DAY * 365)
    return {"rounds": rounds, "sectors_erased": sectors_erased,
            "erases_per_round": per_round, "fs_sectors": fs_sectors, "years": years}


def print_report(w):
    print("  flash wear: %.0f sector erases in %d rounds = %.2f a round; %d sectors x %s"
          " cycles" % (w["sectors_erased"], w["rounds"], w["erases_per_round"],
                       w["fs_sectors"], "{:,}".format(ERASE_CYCLES)))
    print("    at {:,} rounds a day, wear levelled: {:.1f} years (floor {}; the RAM-flash"
          " estimate of tests/logic/test_flash_wear.py: {} years)".format(
              ROUNDS_A_DAY, w["years"], WEAR_FLOOR_YEARS, RAM_FLASH_YEARS))
