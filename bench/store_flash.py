# What a signed LOCK's commit does to littlefs, counted on the unix port
# (docs/benchmarks.md, "LOCK with the record key"): the store under /meter as
# a board keeps it, on a RAM flash with each board's mount (ramflash.py), a
# table with its 25 recent hits and a record key, then N rounds of six seats.
# For the commit, the meter record's write and the log append: the median and
# largest flash reads (littlefs's cache misses: its work walking metadata),
# erases and programs, and how many of the writes erased (a metadata block
# compacted). The emulated Pico times the same path (pico_lock_key.py).
# Usage: MICROPYPATH=firmware:tests/logic .venv/bin/micropython -X heapsize=4M \
#            bench/store_flash.py [ROUNDS]
import os
import sys

from mystery.bonus import MysteryBonus
from mystery.meter import LAST_HITS
from mystery.store import Store
from ramflash import BOARD_MOUNTS, RamFlash, new_chip

MOUNT = "/bench"
SEATS = [(seat, True, 500) for seat in range(1, 7)]
LOWEST = b"\x00"  # the first contribution hits
HIGHEST = b"\x27\x0f"  # 9,999 cents above A1's minimum: no hit in 160 rounds


class Draws:
    def __init__(self):
        self.pattern = LOWEST

    def __call__(self, n):
        return (self.pattern * n)[:n]


def _counted(device, owner, name, counts):
    # owner.name wrapped: each call's (reads, erases, programs) kept.
    call = getattr(owner, name)

    def counting(*args, **kwargs):
        before = (device.reads, device.erases, device.programs)
        result = call(*args, **kwargs)
        counts.append((device.reads - before[0], device.erases - before[1],
                       device.programs - before[2]))
        return result
    setattr(owner, name, counting)


def _mature(bonus, draws):
    # Hit, validate and reset until the full list of recent hits is kept.
    bonus.configure("A1")
    bonus.reset()
    while len(bonus.meter.last_hits) < LAST_HITS:
        bonus.lock_round(SEATS)
        bonus.validate("jackpot_slip")
        if len(bonus.meter.last_hits) == LAST_HITS:
            draws.pattern = HIGHEST
        bonus.reset()


def count(board, rounds):
    mount = BOARD_MOUNTS[board]
    blocks = new_chip(128)
    os.VfsLfs2.mkfs(RamFlash(blocks), **mount)
    device = RamFlash(blocks)
    os.mount(os.VfsLfs2(device, **mount), MOUNT)
    try:
        os.mkdir(MOUNT + "/meter")
        store = Store(MOUNT + "/meter")
        draws = Draws()
        bonus = MysteryBonus(store, draws, lambda: 1_795_000_000)
        bonus.boot()
        _mature(bonus, draws)
        bonus.provision("5e" * 32)
        steps = {"commit": [], "meter record": [], "log append": []}
        _counted(device, store, "commit", steps["commit"])
        _counted(device, store, "_write_state", steps["meter record"])
        _counted(device, store.log, "append", steps["log append"])
        for _ in range(rounds):
            bonus.lock_round(SEATS)
    finally:
        os.umount(MOUNT)
    print("%s's mount %r, %d signed rounds:" % (board, mount, rounds))
    for name, counts in steps.items():
        reads = sorted(one[0] for one in counts)
        print("  %-12s reads median %4d, max %4d; erases %.2f, programs %.2f a commit; "
              "%d of %d erased" % (name, reads[len(reads) // 2], reads[-1],
                                   sum(one[1] for one in counts) / len(counts),
                                   sum(one[2] for one in counts) / len(counts),
                                   sum(1 for one in counts if one[1]), len(counts)))


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 130
for board in ("pico", "esp32"):
    count(board, rounds)
