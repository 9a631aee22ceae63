# How `uthctl log export` takes the board's replies (docs/host-link.md), with
# the board's lines scripted: records past the head are left out, an export
# the log rotated under is an error, an event between records is kept aside.
import pytest

from mystery import chain
from uthctl.errors import BoardRefusal
from uthctl.links import logexport


def linked(count):
    records, prev = [], chain.GENESIS
    for seq in range(1, count + 1):
        records.append(chain.link({"ev": "note", "n": seq}, seq, prev))
        prev = records[-1]["hash"]
    return records


class ScriptedLink:
    # The board's side: `meters` answered at once, then the scripted lines of
    # the log reply (the closing line gets the command's id).
    def __init__(self, head, lines):
        self.head, self.lines = head, list(lines)
        self.next_id, self.events, self.timeout, self.sent = 1, [], 1.0, []

    def command(self, cmd, **fields):
        assert cmd == "meters"
        self.next_id += 1
        return {"ok": True, "meters": {"log_seq": self.head[0], "log_hash": self.head[1]}}

    def send(self, message):
        self.sent.append(message)

    def read_message(self, timeout=None):
        if not self.lines:
            return None
        line = self.lines.pop(0)
        return dict(line, id=self.sent[-1]["id"]) if "ok" in line else line


def replies(records, closing=None):
    lines = [{"reply": "log", "record": record} for record in records]
    return lines + [closing or {"ok": True, "reply": "log", "count": len(records)}]


def test_records_past_the_head_are_left_out():
    records = linked(6)
    head = (4, records[3]["hash"])  # two records committed while the export ran
    lines = replies(records)
    lines.insert(2, {"ev": "locked", "round": 9})  # a LOCK pressed during the export
    link = ScriptedLink(head, lines)
    got, _ = logexport.export(link)
    assert [r["seq"] for r in got] == [1, 2, 3, 4]
    assert link.events == [{"ev": "locked", "round": 9}]
    assert link.sent[0]["since"] == 0


def test_an_export_the_log_rotated_under_is_an_error():
    records = linked(4)
    error = "log export interrupted: records from 3 on were trimmed meanwhile; export again from 3"
    link = ScriptedLink((4, records[3]["hash"]),
                        replies(records[:2], {"ok": False, "error": error}))
    with pytest.raises(BoardRefusal, match="trimmed meanwhile"):
        logexport.export(link)


def test_an_export_that_does_not_reach_the_head_is_an_error():
    records = linked(4)
    link = ScriptedLink((4, records[3]["hash"]), replies(records[:3]))
    with pytest.raises(BoardRefusal, match="ends at record 3 .*not at the meter's log head"):
        logexport.export(link)


def test_after_asks_from_the_next_record_and_checks_the_join():
    records = linked(5)
    link = ScriptedLink((5, records[4]["hash"]), replies(records[3:]))
    got, _ = logexport.export(link, after=(3, records[2]["hash"]))
    assert link.sent[0]["since"] == 4 and [r["seq"] for r in got] == [4, 5]
    link = ScriptedLink((5, records[4]["hash"]), replies(records[3:]))
    with pytest.raises(logexport.JoinError, match="record 4's prev is .* record 3 of the "
                       "earlier export has hash 0{16}: the logs do not join on"):
        logexport.export(link, after=(3, "0" * 64))


def test_after_a_record_the_board_no_longer_keeps():
    records = linked(9)
    link = ScriptedLink((9, records[8]["hash"]), replies(records[6:]))
    with pytest.raises(logexport.JoinError, match="no longer keeps record 4"):
        logexport.export(link, after=(3, records[2]["hash"]))
