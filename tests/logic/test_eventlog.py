# The event log's segments (mystery/eventlog.py), tested on its own: records
# as lines in segments named by their first record, the oldest removed past
# the number kept, a read that stops at the head it is given (asked anew at
# each record), and the records past a head dropped. Records here are plain
# numbered dicts: the log keeps lines, the chain is the store's business.
import os

import tmpdir
from mystery.eventlog import Log


def _records(first, count):
    return [{"seq": seq, "ev": "round"} for seq in range(first, first + count)]


def _filled(root, total, per_segment=4, kept=3, batch=1):
    log = Log(root)
    for first in range(1, total + 1, batch):
        log.append(_records(first, min(batch, total + 1 - first)), per_segment, kept)
    return log


def _seqs(items):
    return [None if item is None else item["seq"] for item in items]


@tmpdir.within
def test_segments_hold_per_segment_records_and_are_named_by_their_first(root):
    log = _filled(root, 10)
    assert log.segments() == ["0000000001.log", "0000000005.log", "0000000009.log"]
    with open(root + "/log/0000000005.log") as f:
        assert [line.strip() for line in f] == ['{"seq":%d,"ev":"round"}' % n
                                                for n in (5, 6, 7, 8)]
    assert Log(root).segments() == log.segments()  # listed again from the flash


@tmpdir.within
def test_the_oldest_segments_go_past_those_kept_and_are_counted_dropped(root):
    log = _filled(root, 14)
    assert log.segments() == ["0000000005.log", "0000000009.log", "0000000013.log"]
    assert sorted(os.listdir(root + "/log")) == log.segments()
    assert log.dropped(14) == 4
    assert Log(root + "/nothing").dropped(7) == 7  # no segment: every record dropped


@tmpdir.within
def test_an_operations_records_stay_in_one_segment(root):
    # A commit of three records that would pass the segment starts a new one.
    log = _filled(root, 3)
    log.append(_records(4, 3), 4, 3)
    assert log.segments() == ["0000000001.log", "0000000004.log"]


@tmpdir.within
def test_a_read_skips_older_segments_and_stops_at_the_head_asked_each_record(root):
    log = _filled(root, 10)
    assert _seqs(log.reads(6, lambda: 10)) == [None, 6, 7, 8, 9, 10]  # from segment 5
    assert _seqs(log.reads(1, lambda: 3)) == [1, 2, 3]
    heads = [7]
    reading = log.reads(6, lambda: heads[0])
    assert _seqs([next(reading), next(reading), next(reading)]) == [None, 6, 7]
    heads[0] = 9  # committed meanwhile: read too
    assert _seqs(reading) == [8, 9]


@tmpdir.within
def test_a_read_outrun_by_trimming_goes_on_at_the_oldest_kept_segment(root):
    log = _filled(root, 10)
    reading = log.reads(1, lambda: 100)
    assert _seqs([next(reading), next(reading)]) == [1, 2]
    for first in range(11, 19):  # two segments more: 1-4 and 5-8 removed
        log.append(_records(first, 1), 4, 3)
    # Not another byte of a removed segment: the read goes on at 9, and the
    # caller (Store.export_log) sees the gap.
    assert _seqs(reading)[:2] == [9, 10]


@tmpdir.within
def test_records_past_a_head_are_found_newest_segment_first_and_dropped(root):
    log = _filled(root, 10)
    assert [(name, record["seq"]) for name, record in log.past(7)] == [
        ("0000000009.log", 9), ("0000000009.log", 10), ("0000000005.log", 8)]
    log.drop_past(7)
    assert log.segments() == ["0000000001.log", "0000000005.log"]
    assert _seqs(log.reads(1, lambda: 100)) == [1, 2, 3, 4, 5, 6, 7]
    assert list(log.past(7)) == []
    assert not [name for name in os.listdir(root + "/log") if name.endswith(".tmp")]
