# Outside service mode the host link is all the port speaks (docs/host-link.md,
# "Control bytes"): the REPL's control characters (Ctrl-A raw REPL, Ctrl-B,
# Ctrl-C interrupt, Ctrl-D soft reset, Ctrl-E paste mode) are bytes of a line
# like any other, alone, inside a line or during a log export. The link never
# stops for them; a line holding one is not JSON and is refused, and the next
# command is answered as before.
import json

import tmpdir
from collecting import lock_collected
from table_rig import Rig

CONTROL = (b"\x01", b"\x02", b"\x03", b"\x04", b"\x05")
FULL_LOG = 8 * 32  # the store keeps 8 segments of 32 records
LINE_GAP_MS = 500  # the host link's silence that drops a partial line (docs/host-link.md)


def _replies(rig, before):
    return [json.loads(line) for line in rig.lines[before:]]


def _ping_answered(rig, ident):
    reply = rig.command(cmd="ping", id=ident)
    assert reply == [{"ok": True, "reply": "pong", "id": ident}], reply


@tmpdir.within
def test_a_control_byte_alone_or_in_a_line_is_refused_and_play_goes_on(root):
    rig = Rig(root)
    rig.configure("A1")
    for number, byte in enumerate(CONTROL):
        for line in (byte + b"\n", b'{"cmd": "pi' + byte + b'ng"}\n',
                     byte + b'{"cmd": "ping", "id": 7}\n', b'{"cmd": "ping"}' + byte + b"\n"):
            before = len(rig.lines)
            rig.feed(line)  # raised nothing: the controller was not stopped
            replies = _replies(rig, before)
            assert replies == [{"ok": False, "error": "not a JSON line"}], (line, replies)
        _ping_answered(rig, number)
    assert rig.table.state == "betting"


@tmpdir.within
def test_a_control_byte_without_a_line_end_is_a_partial_line_dropped(root):
    rig = Rig(root)
    rig.configure("A1")
    # As mpremote opens a board: Ctrl-C twice, then Ctrl-A for the raw REPL.
    rig.link.feed(b"\r\x03\x03", rig.now)
    rig.link.feed(b"\x01", rig.now)
    before = len(rig.lines)
    rig.link.feed(b"", rig.now + LINE_GAP_MS)  # a read that found nothing, half a second on
    assert _replies(rig, before) == [
        {"ok": False, "error": "partial line dropped: no byte for %d ms" % LINE_GAP_MS}]
    _ping_answered(rig, 1)


def _fill_log(rig):
    # 3 records (config, reset, service left) + 317 rounds = 320 = 10
    # segments: 8 kept, full.
    for _ in range(317):
        lock_collected(rig.table.bonus, [(6, True, 100)])
    del rig.lines[:]


class _Counted:
    # What the board sends during an export, kept small for a board-sized
    # heap: the records counted, every other message kept.
    def __init__(self):
        self.records = 0
        self.replies = []

    def write(self, line):
        message = json.loads(line)
        if "record" in message:
            self.records += 1
        else:
            self.replies.append(message)


@tmpdir.within
def test_control_bytes_during_an_export_neither_stop_it_nor_the_controller(root):
    rig = Rig(root)
    rig.configure("A1")
    _fill_log(rig)
    out = _Counted()
    rig.link = type(rig.link)(rig.table, out.write)
    late = [b"\x03", b"\x01\x05\n", b'{"cmd": "ping", "id": 2}\n\x03\x04\x02', b"\n"]
    rig.link.feed(b'{"cmd": "log", "id": 1}\n\x03', rig.now)
    while rig.link.busy():
        rig.link.poll(lambda: late.pop(0) if late else b"", rig.now)
    assert out.records == FULL_LOG, out.records
    # The export's reply, then what came meanwhile, in order: the line of
    # control bytes, the ping, the line of control bytes after it.
    assert out.replies == [{"ok": True, "reply": "log", "count": FULL_LOG, "id": 1},
                           {"ok": False, "error": "not a JSON line"},
                           {"ok": True, "reply": "pong", "id": 2},
                           {"ok": False, "error": "not a JSON line"}], out.replies
    rig.link.feed(b'{"cmd": "ping", "id": 3}\n', rig.now)
    assert out.replies[-1] == {"ok": True, "reply": "pong", "id": 3}, out.replies
