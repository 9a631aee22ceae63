# A boot reads the log a record at a time, however long a segment is: a
# whole segment is a large piece of a board's heap, and the heap the store
# finds at boot depends on everything else the board holds. Here the newest
# segment is far larger than a board's heap, with one record past the meter's
# head (an operation cut off before its meter record landed), so the boot
# must read it to judge and drop that record. On MicroPython (a board's heap) a
# boot that held the segment whole runs out of memory; on CPython the boot's
# peak allocation is measured.
import gc
import os
import sys

import tmpdir
from mystery import chain
from mystery.meter import Meter
from mystery.store import Store

RECORDS = 400
PAD = 400  # characters of padding a record: the segment is over 160 KB of text
# CPython's peak for a boot that holds a record or two at once, with its
# file buffers, is about 40 KB; one that holds the segment needs over 160 KB
# (the text alone).
PEAK_LIMIT = 80 * 1024


def _long_segment(root):
    store = Store(root, segment_records=RECORDS + 10)
    store.boot()
    meter = Meter()
    for n in range(RECORDS):
        store.commit(meter, [{"ev": "note", "n": n, "pad": "x" * PAD}])
    # The next operation's first record lands; its meter record never does.
    record = chain.link({"ev": "round", "round": 1}, store.head_seq + 1, store.head_hash)
    segment = root + "/log/" + os.listdir(root + "/log")[0]
    with open(segment, "a") as f:
        f.write('{"ev":"round","round":1,"seq":%d,"prev":"%s","hash":"%s"}\n'
                % (record["seq"], record["prev"], record["hash"]))
    return segment


def _boot(root):
    store = Store(root, segment_records=RECORDS + 10)
    if sys.implementation.name != "cpython":
        gc.collect()
        return store, store.boot(), None
    import tracemalloc

    tracemalloc.start()
    try:
        meter = store.boot()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return store, meter, peak


@tmpdir.within
def test_a_boot_reads_a_segment_larger_than_the_heap_a_record_at_a_time(root):
    segment = _long_segment(root)
    assert os.stat(segment)[6] > RECORDS * PAD
    store, meter, peak = _boot(root)
    assert peak is None or peak < PEAK_LIMIT, peak
    # The cut operation was judged and dropped, the committed records kept.
    assert meter.phase == "unconfigured" and store.head_seq == RECORDS
    assert any("the round from log record %d is dropped" % (RECORDS + 1) in warning
               for warning in store.warnings), store.warnings
    with open(segment) as f:
        assert sum(1 for _ in f) == RECORDS
    assert [r["n"] for r in store.read_log(RECORDS - 1)] == [RECORDS - 2, RECORDS - 1]
