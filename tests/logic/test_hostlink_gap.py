# A partial line followed by silence (a host that died mid-line) is dropped
# after 500 ms without a byte, with one error reply, so the next host's first
# command is read whole. The silence is measured in ticks, across their wrap.
# The link's turns come every 5 ms, as app.py runs them.
import json

import tmpdir
from table.clock import ticks_add
from table_rig import Rig

TICK_MS = 5
DROPPED = {"ok": False, "error": "partial line dropped: no byte for 500 ms"}


def _nothing():
    return b""


def _quiet(rig, ms):
    # The link's turns with nothing to read, for `ms`.
    for _ in range(ms // TICK_MS):
        rig.now = ticks_add(rig.now, TICK_MS)
        rig.link.poll(_nothing, rig.now)


def _send(rig, data):
    before = len(rig.lines)
    rig.link.poll(lambda: data, rig.now)
    return [json.loads(line) for line in rig.lines[before:]]


def _partial_then_ping(root, start, silence_ms, partial=b'{"cmd": "sta'):
    rig = Rig(root, now=start)
    assert _send(rig, partial) == []
    _quiet(rig, silence_ms)
    return _send(rig, b'{"cmd": "ping", "id": 1}\n'), rig


@tmpdir.within
def test_a_partial_line_then_500_ms_of_silence_is_dropped(root):
    replies, rig = _partial_then_ping(root, 1000, 500)
    assert replies == [{"ok": True, "reply": "pong", "id": 1}]
    assert [json.loads(line) for line in rig.lines if '"ok"' in line] == [
        DROPPED, {"ok": True, "reply": "pong", "id": 1}]


@tmpdir.within
def test_a_pause_under_500_ms_keeps_the_line(root):
    rig = Rig(root)
    for byte in b'{"cmd": "ping", "id": 2}':  # typed slowly: 495 ms between bytes
        assert _send(rig, bytes([byte])) == []
        _quiet(rig, 495)
    assert _send(rig, b"\n") == [{"ok": True, "reply": "pong", "id": 2}]


@tmpdir.within
def test_the_silence_is_measured_across_the_ticks_wrap(root):
    near_wrap = (1 << 30) - 200  # the silence crosses ticks_ms's wrap to 0
    replies, _ = _partial_then_ping(root, near_wrap, 495, partial=b'{"cmd": ')
    assert replies == [{"ok": False, "error": "not a JSON line"}]  # kept: one line
    replies, _ = _partial_then_ping(root, near_wrap, 500)
    assert replies == [{"ok": True, "reply": "pong", "id": 1}]


@tmpdir.within
def test_an_overlong_partial_line_then_silence_is_dropped_too(root):
    replies, rig = _partial_then_ping(root, 1000, 500, partial=b"x" * 300)
    assert replies == [{"ok": True, "reply": "pong", "id": 1}]
    assert DROPPED in [json.loads(line) for line in rig.lines]


@tmpdir.within
def test_a_line_whose_rest_came_during_a_long_turn_is_kept(root):
    # The first packet is read, then the loop is busy for 600 ms (a commit,
    # say) while the rest arrives 1 ms later: the next read holds it. The
    # host was never silent, so nothing is dropped.
    rig = Rig(root)
    assert _send(rig, b'{"cmd": "ping", "id": "a-long-enough-id-') == []
    rig.now = ticks_add(rig.now, 600)
    assert _send(rig, b'to-span-two-usb-packets"}\n') == [
        {"ok": True, "reply": "pong", "id": "a-long-enough-id-to-span-two-usb-packets"}]
    assert len(rig.lines) == 1  # the pong alone: no "partial line dropped" before it


@tmpdir.within
def test_after_a_long_turn_a_read_that_finds_nothing_drops_the_line(root):
    rig = Rig(root)
    assert _send(rig, b'{"cmd": "sta') == []
    rig.now = ticks_add(rig.now, 600)
    assert _send(rig, b"") == [DROPPED]
    assert _send(rig, b'{"cmd": "ping", "id": 3}\n') == [{"ok": True, "reply": "pong", "id": 3}]
