# The interactive table on an emulated chip far behind the wall clock: a key
# whose answer keeps the person waiting says on the screen that the table
# waits on the board, and the answer is still taken when it comes.
import socket

from test_rig_slow_note import CrawlingChip

from uthctl.links.rig import Rig
from uthctl.tui.hands import SLOW_CHIP_SAY, Hands


def test_a_key_waiting_on_a_slow_chip_says_so_on_the_screen():
    server = socket.create_server(("127.0.0.1", 0))
    rig = Rig("127.0.0.1:%d" % server.getsockname()[1], timeout=0.2)
    board_side, _ = server.accept()
    rig.transport.chip_clock = CrawlingChip(looks=8)
    said = []

    def say(text, style):
        said.append((text, style))
        board_side.sendall(b'{"ok": true}\n')  # the chip answers once the screen says it waits

    hands = Hands(rig, None, say)
    hands.tell_slow_waits()
    try:
        assert rig.request(op="set", pin="bet1", level=1) == {"ok": True}
    finally:
        rig.close()
        board_side.close()
        server.close()
    assert said == [(SLOW_CHIP_SAY, "dim")]


def test_a_table_with_no_rig_has_nothing_to_tell():
    Hands(None, None, None).tell_slow_waits()  # attached with no rig: no transport
