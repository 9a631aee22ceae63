# The flash wear count of tests/logic/test_flash_wear.py for one board, in a
# MicroPython process of its own with the board's heap (the controller and
# the settlement compiled from source need it whole). Prints the figures and
# exits non-zero under the budget.
# Usage: MICROPYPATH=.frozen:firmware:tests/logic micropython -X heapsize=$UTH_HEAPSIZE \
#            tests/logic/flash_wear_script.py pico|esp32
import gc
import os
import sys

from mystery.bonus import MysteryBonus
from mystery.meter import LAST_HITS, RUNNING
from mystery.store import Store
from ramflash import BOARD_MOUNTS, FileChip, RamFlash
from tmpdir import make, remove

gc.collect()
# The settlement's modules, loaded before the flash is mounted, in a heap not
# yet in pieces (a board's are precompiled; compiled here, they need room).
from mystery import settlement, table_rules, wagers  # noqa: E402, F401, I001

ROUNDS_A_DAY = 1500
ERASE_CYCLES = 100_000  # rated erase cycles of a NOR flash block
WEAR_BUDGET_YEARS = 20  # design.md
BLOCK_SIZE = 4096  # both boards' erase block
# Enough for the store with its settlement records (the chip's bytes in a
# file, outside the heap); littlefs levels wear over the real chip's blocks.
CHIP_BLOCKS = 32

# board -> (what it is, filesystem blocks, the keywords its _boot.py gives
# os.VfsLfs2). The Pico's: the rp2 image's littlefs region, 1,408 KiB
# (docs/boards.md, "The emulated Pico"), as the wear run on the emulated Pico counts it.
BOARDS = {
    "pico": ("Pico (RP2040), 1,408 KiB filesystem", 352, BOARD_MOUNTS["pico"]),
    "esp32": ("ESP32, default 2 MB filesystem partition", 512, BOARD_MOUNTS["esp32"]),
}

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


# The settlement of each round: six seats, every side wager at $5.
TABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}
STAKES = {"trips": 500, "bad_beat": 500, "play_the_board": 500, "ultimate_pairs": 500}
ROUND = {"round": "table-1-000001", "dealer": ["Qs", "Ks"],
         "board": ["9s", "Ts", "Js", "9c", "9d"],
         "seats": [{"seat": n, "cards": cards.split(), "wagers": STAKES}
                   for n, cards in ((1, "2c 3c"), (2, "4c 5c"), (3, "6c 7c"), (4, "8c Tc"),
                                    (5, "Jc Qc"), (6, "Kc Ac"))]}


# The floor confirms what it stored every 32 records (floor/collected.py):
# the board's collected mark written that often is part of a round's wear.
CONFIRM_EVERY = 32


def _collected(bonus):
    store = bonus.store
    if store.uncollected() >= CONFIRM_EVERY:
        store.collect(store.head_seq)


def _play(bonus, settle):
    _collected(bonus)
    bonus.lock_round(SEATS)
    if settle:
        bonus.settle_round(ROUND)


def _mature_table(bonus, draws):
    # Hit, validate and reset until the meter keeps its full list of
    # recent hits, then start a cycle that will not hit.
    bonus.configure("A1")
    bonus.reset()
    while len(bonus.meter.last_hits) < LAST_HITS:
        _collected(bonus)
        bonus.lock_round(SEATS)
        bonus.validate("jackpot_slip")
        if len(bonus.meter.last_hits) == LAST_HITS:
            draws.pattern = HIGHEST
        bonus.reset()


# The record key given for the signed count (docs/host-link.md, "Record keys").
RECORD_KEY = "5e" * 32


def _erases_per_step(folder, mount_keywords, prepare, step, warm_up, count):
    # Block erases a step (a round, an event) costs on a mature table, once
    # `warm_up` steps have run: littlefs over a chip in a file, with the board's
    # mount. Gives (erases a step, the bonus) for the caller's checks.
    blocks = FileChip(folder + "/chip.bin", CHIP_BLOCKS, BLOCK_SIZE)
    os.VfsLfs2.mkfs(RamFlash(blocks), **mount_keywords)
    device = RamFlash(blocks)
    os.mount(os.VfsLfs2(device, **mount_keywords), MOUNT)
    try:
        draws = Draws()
        # A hit's clock as a board's: seconds since 1970.
        # The chip holds the store with little to spare, under a board's
        # reserve for a commit; the check for it writes nothing, so it
        # is off here (reserve 0).
        # Three segments keep 58 records not collected: the floor's 32 and a
        # LOCK's room fit.
        store = Store(MOUNT, segments_kept=3, reserve_blocks=0)
        bonus = MysteryBonus(store, draws, lambda: 1_795_000_000)
        assert bonus.boot() == []
        prepare(bonus, draws)
        for _ in range(warm_up):
            step(bonus)
        start = device.erases
        for _ in range(count):
            step(bonus)
        return (device.erases - start) / count, bonus
    finally:
        os.umount(MOUNT)
        blocks.close()


def _erases_per_round(folder, mount_keywords, settle, signed=False, warm_up=50, rounds=100):
    def prepare(bonus, draws):
        bonus.change_setting("paytables", TABLES)
        _mature_table(bonus, draws)
        if signed:  # every commit after it signs its records
            bonus.provision(RECORD_KEY)

    per_round, bonus = _erases_per_step(folder, mount_keywords, prepare,
                                        lambda bonus: _play(bonus, settle), warm_up, rounds)
    assert bonus.meter.phase == RUNNING and bonus.meter.hits == LAST_HITS
    assert bonus.store.dropped() > 0  # the log rotates its segments meanwhile
    assert bonus.wager_meters()["settled"] == (warm_up + rounds if settle else 0)
    return per_round


# The board's significant events (issue 38 item 2), each a record of its own
# commit, signed, as a keyed board writes them: their wear beside a round's.
EVENTS = (
    ("a start", {"ev": "start", "program": "a1" * 32, "cause": "pwron_reset"}),
    ("service mode entered or left", {"ev": "service", "entered": True}),
    ("the clock set", {"ev": "clock", "was": [2021, 1, 1, 0, 0, 9],
                       "new": [2026, 12, 5, 14, 30, 0], "by": "floor"}),
    ("a fault raised or cleared", {"ev": "fault", "source": "display",
                                   "reason": "display: the LED meter does not acknowledge "
                                             "(9 bytes missed)"}),
)


def _erases_per_event(folder, mount_keywords, event, warm_up=20, count=100):
    # Collected as the floor collects (_collected), as the rounds' count is.
    def prepare(bonus, draws):
        _mature_table(bonus, draws)
        bonus.provision(RECORD_KEY)

    def step(bonus):
        _collected(bonus)
        bonus.record_event(dict(event))

    each, bonus = _erases_per_step(folder, mount_keywords, prepare, step, warm_up, count)
    assert bonus.store.head_seq > count
    return each


def print_event_wear(name):
    # Not held to a budget: events come a few times a day against 1,500 rounds.
    board, blocks, mount_keywords = BOARDS[name]
    folder = make()
    try:
        for what, event in EVENTS:
            gc.collect()
            each = _erases_per_event(folder, mount_keywords, event)
            print("flash wear: %s, %s: %.2f erases each (signed)" % (board, what, each))
    finally:
        remove(folder)


def main(name):
    # segments_kept=3 rather than a board's 40 or 64 keeps the chip small; a
    # round's commit costs the same either way. Measured without the
    # settlement too, to show what it adds, and with a record key, to show
    # what signing adds; the budget is with the settlement.
    board, blocks, mount_keywords = BOARDS[name]
    folder = make()
    short = False
    try:
        for settle, signed in ((False, False), (True, False), (True, True)):
            gc.collect()
            per_round = _erases_per_round(folder, mount_keywords, settle, signed)
            # littlefs spreads erases over every block, so a filesystem of B
            # blocks rated for ERASE_CYCLES each lasts B * ERASE_CYCLES erases.
            years = blocks * ERASE_CYCLES / (per_round * ROUNDS_A_DAY * 365)
            print("flash wear: %s, mounted %r, %s: %.2f erases a round with %d recent "
                  "hits kept; %d blocks x %d erases: %.1f years at %d rounds a day "
                  "(budget %d)" % (board, mount_keywords,
                                   ("LOCK and settlement" if settle else "LOCK only")
                                   + (", every record signed" if signed else ""),
                                   per_round, LAST_HITS, blocks, ERASE_CYCLES, years,
                                   ROUNDS_A_DAY, WEAR_BUDGET_YEARS))
            short = short or (settle and years < WEAR_BUDGET_YEARS)
    finally:
        remove(folder)
    if short:
        print("flash lifetime under design.md's budget on %s" % board)
        sys.exit(1)


print_event_wear(sys.argv[1])
main(sys.argv[1])
