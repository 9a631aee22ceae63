# A line the heap cannot hold when the board speaks: the table does not stop.
# Tried again after a collection, and given up for a short line that says so;
# the table answers the next command as before. The heap's refusal is made
# here by a serial port that refuses the lines a test names with the
# MemoryError a board's allocator raises.
import json

import tmpdir
from table_rig import Rig


class TightPort:
    def __init__(self, lines, too_big):
        self.lines = lines
        self.too_big = too_big  # text -> True for a line the heap cannot hold
        self.refused = 0

    def __call__(self, text):
        if self.too_big(text):
            self.refused += 1
            raise MemoryError("memory allocation failed")
        self.lines.append(text)


def _tight(rig, too_big):
    port = TightPort(rig.lines, too_big)
    rig.link.write = port
    return port


@tmpdir.within
def test_a_reply_too_long_for_the_heap_is_refused_short_and_the_table_answers_on(root):
    rig = Rig(root)
    rig.configure("A1")
    port = _tight(rig, lambda text: len(text) > 120)
    replies = rig.command(cmd="status", id=41)
    assert port.refused == 2  # once, and once more after a collection
    assert replies == [{"ok": False, "id": 41, "error": "no memory free to send this reply"}]
    assert rig.command(cmd="ping", id=42) == [{"ok": True, "reply": "pong", "id": 42}]
    rig.link.write = rig.lines.append
    assert rig.command(cmd="status", id=43)[-1]["state"] == "betting"


@tmpdir.within
def test_an_event_too_long_for_the_heap_is_named_and_play_goes_on(root):
    rig = Rig(root)
    rig.configure("A1")
    rig.chip(1)
    _tight(rig, lambda text: '"ev": "contribution"' in text)
    rig.press_lock()
    unsent = [json.loads(line) for line in rig.lines if '"unsent"' in line]
    assert {"ev": "unsent", "was": "contribution",
            "reason": "no memory free to send it"} in unsent
    rig.link.write = rig.lines.append
    assert rig.command(cmd="meters")[-1]["meters"]["round"] == 1  # the round was played
