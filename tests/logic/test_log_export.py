# A log export shares the board's one loop with the table: it goes out a few
# records a turn, so a LOCK tap pressed during a full export is seen, and
# commands sent meanwhile are answered in order after it. The loop is stepped
# here as app.py runs it (the link's turn, then the table's tick), with time
# passing for each record sent as it does on a board: about 2 ms a record
# (a full log took about half a second), plus the 5 ms sleep of each task.
import json

import tmpdir
from collecting import lock_collected
from mystery import chain
from table.clock import ticks_add
from table_rig import Rig

RECORD_MS = 2
TICK_MS = 5
FULL_LOG = 8 * 32  # the store keeps 8 segments of 32 records
MOST_PER_TURN = 8  # a turn that sends more holds a board's loop over 16 ms


def _fill_log(rig):
    # 3 records (config, reset, service left) + 317 rounds = 320 = 10
    # segments: 8 kept, full.
    for _ in range(317):
        lock_collected(rig.table.bonus, [(6, True, 100)])
    del rig.lines[:]


def _nothing():
    return b""


class Host:
    # The bytes the host sends, read by the link 64 at a time as the board's serial is.
    def __init__(self):
        self.waiting = b""

    def send(self, **command):
        self.waiting += json.dumps(command).encode() + b"\n"

    def read(self):
        data, self.waiting = self.waiting[:64], self.waiting[64:]
        return data


class Out:
    # What the board sends, kept small enough for a board-sized heap: each
    # record is checked against the one before as it comes, then let go.
    def __init__(self):
        self.kinds = []  # "record", "reply" or the event's name, in order
        self.records = 0
        self.first_seq = None
        self.last = None  # (seq, hash) of the newest record
        self.chained = True
        self.replies = []
        self.contributions = []

    def write(self, line):
        message = json.loads(line)
        if "record" in message:
            self._record(message["record"])
        elif "ok" in message:
            self.kinds.append("reply")
            self.replies.append(message)
        else:
            self.kinds.append(message["ev"])
            if message["ev"] == "contribution":
                self.contributions.append((message["seat"], message["amount"]))

    def _record(self, record):
        if self.last is None:
            self.first_seq = record["seq"]
        elif record["seq"] != self.last[0] + 1 or not chain.verify([record], self.last[1])[0]:
            self.chained = False
        self.last = (record["seq"], record["hash"])
        self.records += 1
        if not self.kinds or self.kinds[-1] != "record":
            self.kinds.append("record")  # a run of records is one entry


def _turn(rig, out, host, lock_pressed):
    # One turn of the loop: the link's slice, its records' time, the table's tick.
    before = out.records
    rig.link.poll(host.read, rig.now)
    records = out.records - before
    rig.now = ticks_add(rig.now, records * RECORD_MS + TICK_MS)
    rig.lock.level = 1 if lock_pressed(rig.now) else 0
    rig.table.tick(rig.now)
    return records


@tmpdir.within
def test_a_lock_tap_during_a_full_log_export_is_seen(root):
    rig = Rig(root)
    rig.configure("A1")
    _fill_log(rig)
    rig.chip(1)
    out = Out()
    rig.link.write = out.write
    host = Host()
    host.send(cmd="log", id="export")
    host.send(cmd="ping", id="queued")  # in the same read as the log command
    start = rig.now
    tap = (start + 150, start + 210)  # a 60 ms tap, well inside a full export on a board

    def lock_pressed(now):
        return tap[0] <= now < tap[1]

    per_turn = []
    while len(out.replies) < 2:
        per_turn.append(_turn(rig, out, host, lock_pressed))
        if len(per_turn) == 20:
            host.send(cmd="status", id="late")  # arrives mid-export
        assert len(per_turn) < 1000, "the export never ended"
    for _ in range(10):
        _turn(rig, out, host, lock_pressed)

    assert max(per_turn) <= MOST_PER_TURN, per_turn
    assert out.records >= FULL_LOG and out.chained
    assert out.replies[0] == {"ok": True, "reply": "log", "count": out.records, "id": "export"}
    assert [r.get("id") for r in out.replies] == ["export", "queued", "late"]
    # The table played on during the export: the tap locked a round between
    # two runs of records; every reply came after the last record.
    assert out.kinds[out.kinds.index("locked") - 1] == "record", out.kinds
    assert "record" in out.kinds[out.kinds.index("locked"):], "the tap was missed"
    assert "record" not in out.kinds[out.kinds.index("reply"):], out.kinds
    assert out.contributions == [(1, 20_000)]
    assert rig.table.state == "locked"


def _count_reads(store):
    # How many log records the store reads from its segments, through the
    # one place it reads them.
    reads = [0]
    records = store.log._records

    def counted(name):
        for record in records(name):
            reads[0] += 1
            yield record

    store.log._records = counted
    return reads


@tmpdir.within
def test_an_export_from_near_the_head_reads_a_few_records_a_turn(root):
    # The records before `since` are not sent, but reading them takes the
    # loop's time all the same: a turn must not read its way through the
    # older log to the first record it sends.
    rig = Rig(root)
    rig.configure("A1")
    _fill_log(rig)
    head = rig.table.bonus.store.head_seq
    for since in (head - 3, head, 0):
        reads = _count_reads(rig.table.bonus.store)
        out = Out()
        rig.link.write = out.write
        rig.link.feed(json.dumps({"cmd": "log", "since": since}).encode() + b"\n", rig.now)
        per_turn = []
        while rig.link.busy():
            before = reads[0]
            rig.link.poll(_nothing, rig.now)
            per_turn.append(reads[0] - before)
            assert len(per_turn) < 1000, "the export never ended"
        assert max(per_turn) <= MOST_PER_TURN, (since, per_turn)
        first = max(since, head - FULL_LOG + 1)
        assert (out.first_seq, out.last[0], out.chained) == (first, head, True), since
        assert out.replies == [{"ok": True, "reply": "log", "count": head - first + 1}]
        if since:
            # Only the segment holding `since` is read: 32 records at most.
            assert reads[0] <= 32 + 1, (since, reads[0])

