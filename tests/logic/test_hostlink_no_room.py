# A line the heap cannot hold when the board speaks: the table does not stop.
# Tried again after a collection, and given up for a short line that says so;
# the table answers the next command as before. The heap's refusal is made
# here by a serial port that refuses the lines a test names with the
# MemoryError a board's allocator raises.
import io
import json

import tmpdir
from table.serial import UsbSerial
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


@tmpdir.within
def test_a_reply_too_long_to_make_whole_goes_out_a_piece_at_a_time(root):
    # A port that can write a line as json.dump makes it (the board's
    # UsbSerial.write_json) gets the reply whole that way instead of a refusal.
    rig = Rig(root)
    rig.configure("A1")
    port = _tight(rig, lambda text: len(text) > 120)
    pieces = []
    rig.link.write_json = lambda message: pieces.append(json.dumps(message))
    replies = rig.command(cmd="status", id=44)
    assert port.refused == 2 and replies == []  # tried whole twice, then in pieces
    [reply] = [json.loads(text) for text in pieces]
    assert reply["id"] == 44 and reply["reply"] == "status" and reply["state"] == "betting"


def test_the_serial_port_writes_a_message_as_one_json_line():
    serial = object.__new__(UsbSerial)  # its stdin and poller are not needed to write
    serial.text_out = io.StringIO()
    message = {"ok": True, "reply": "meters", "id": 7,
               "meters": {"last_hits": [[3, 12345678, 1, 40, "slip", None]], "phase": "running"}}
    serial.write_json(message)
    text = serial.text_out.getvalue()
    assert text.endswith("\r\n") and text.count("\n") == 1
    assert json.loads(text[:-2]) == message
