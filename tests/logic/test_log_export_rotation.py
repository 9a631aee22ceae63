# A log export runs a few records a turn while the table plays on, so rounds
# may commit meanwhile and the log rotate under it: a new segment started,
# the oldest removed to keep the log bounded. What goes out must stay true:
# consecutive records, chained, then either the log to its head or an error
# naming the first record that did not go out, never "ok" with records
# missing, and never a record read from a removed segment's blocks (littlefs
# frees them at once and may reuse them while the export has the file open).
# On a folder of the host's filesystem, and on MicroPython on littlefs as
# each board mounts it (ramflash.py).
import gc
import json
import os
import sys

# The RAM flash's block buffer (ramflash.FileChip), taken before the
# controller's modules load: after them a board's heap may hold 4 KB in one
# piece nowhere.
_BLOCK = bytearray(4096) if sys.implementation.name == "micropython" else None

import tmpdir  # noqa: E402
from collecting import lock_collected, small_log  # noqa: E402
from mystery import chain  # noqa: E402
from table_rig import Rig  # noqa: E402

# (since, turns, rounds): an export from `since` gets `turns` turns (each
# reads 4 records), then `rounds` rounds commit, then it runs to its end.
# With segments of 6 records, 3 kept, and records 1-18 in segments 1, 7 and
# 13 when it starts:
CASES = (
    (1, 1, 13),  # every segment it started with removed, their blocks reused (1-4 sent)
    (1, 1, 1),  # the segment being read removed, 5 and 6 of it unsent (1-4 sent)
    (7, 1, 7),  # the segment being read and the next removed (7-10 sent)
    (1, 2, 1),  # only a segment already read removed: on to the head (19)
)
ENDED = ["interrupted at 5", "interrupted at 5", "interrupted at 11", "whole"]


class Out:
    def __init__(self):
        self.seqs = []
        self.last_hash = None
        self.chained = True
        self.replies = []

    def write(self, line):
        message = json.loads(line)
        if "record" not in message:
            if "ok" in message:
                self.replies.append(message)
            return
        record = message["record"]
        if self.seqs and (record["seq"] != self.seqs[-1] + 1
                          or not chain.verify([record], self.last_hash)[0]):
            self.chained = False
        self.seqs.append(record["seq"])
        self.last_hash = record["hash"]


def _nothing():
    return b""


def _rotating_rig(root):
    # 3 records (config, reset, service left) + 14 rounds and the log's
    # warning (its 75% reached): records 1-18, segments 1, 7, 13.
    # (A reserve of 2 blocks, as in the power-cut proof: the 16-block flash
    # holds the store with a few to spare, not a board's 6.)
    rig = Rig(root)
    store = rig.table.bonus.store
    small_log(store, 6, 3)
    store.reserve_blocks = 2
    rig.configure("A1")
    for _ in range(14):
        lock_collected(rig.table.bonus, [(6, True, 100)])
    assert rig.table.bonus.store.head_seq == 18
    return rig


def _outrun(rig, since, turns, rounds):
    out = Out()
    rig.link.write = out.write
    rig.link.feed(json.dumps({"cmd": "log", "since": since}).encode() + b"\n", rig.now)
    for _ in range(turns):
        rig.link.poll(_nothing, rig.now)
    for _ in range(rounds):
        lock_collected(rig.table.bonus, [(6, True, 100)])
    while rig.link.busy():
        rig.link.poll(_nothing, rig.now)
        assert len(out.seqs) < 100, "the export never ended"
    return out


def _ended(rig, out, since):
    assert out.seqs and out.seqs[0] == since and out.chained, (out.seqs, out.chained)
    [reply] = out.replies
    following = out.seqs[-1] + 1
    if reply["ok"]:
        assert out.seqs[-1] == rig.table.bonus.store.head_seq, (out.seqs, reply)
        assert reply["count"] == len(out.seqs)
        return "whole"
    assert reply == {"ok": False, "error": "log export interrupted: records from %d on were "
                     "trimmed meanwhile; export again from %d" % (following, following)}, reply
    # The record it names is indeed gone from the log.
    assert following <= rig.table.bonus.store.dropped(), "nothing was trimmed"
    return "interrupted at %d" % following


def _empty(path):
    for name in os.listdir(path):
        child = path + "/" + name
        if os.stat(child)[0] & 0x4000:
            _empty(child)
            os.rmdir(child)
        else:
            os.remove(child)


def _cases(root):
    ended = []
    for since, turns, rounds in CASES:
        rig = _rotating_rig(root)
        ended.append(_ended(rig, _outrun(rig, since, turns, rounds), since))
        _empty(root)
    return ended


@tmpdir.within
def test_an_export_the_log_rotates_under_never_skips_a_record(root):
    assert _cases(root) == ENDED


if sys.implementation.name == "micropython":
    from ramflash import BOARD_MOUNTS, FileChip, RamFlash

    def _on_littlefs(folder, board):
        # 16 blocks of 4 KB, in a file as a board's flash is outside its heap.
        chip = FileChip(folder + "/flash.bin", 16, buffer=_BLOCK)
        try:
            gc.collect()  # the first case's controller is garbage: its heap back, whole
            device = RamFlash(chip)
            os.VfsLfs2.mkfs(device, **BOARD_MOUNTS[board])
            os.mount(os.VfsLfs2(device, **BOARD_MOUNTS[board]), "/xflash")
            try:
                return _cases("/xflash")
            finally:
                os.umount("/xflash")
        finally:
            chip.close()

    @tmpdir.within
    def test_an_export_the_log_rotates_under_on_the_picos_littlefs(folder):
        assert _on_littlefs(folder, "pico") == ENDED

    @tmpdir.within
    def test_an_export_the_log_rotates_under_on_the_esp32s_littlefs(folder):
        assert _on_littlefs(folder, "esp32") == ENDED
