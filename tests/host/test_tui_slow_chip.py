# The interactive table on an emulated chip far behind the wall clock: a key
# whose answer keeps the person waiting says on the screen that the table
# waits on the board, and the answer is still taken when it comes.
import os
import socket
import tty

import pytest
from test_rig_slow_note import CrawlingChip

from uthctl.links.rig import Rig
from uthctl.links.rig_transport import RigError, SerialTransport
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


def test_a_rig_pico_on_its_serial_port_is_never_told_slow():
    # A rig Pico is a real chip on the wall's clock: its transport has no slow
    # note, and the table's screen gives it none (a note there would call every
    # wait past the wall's seconds a slow chip).
    master, slave = os.openpty()
    tty.setraw(slave)
    rig = Rig(port=os.ttyname(slave), timeout=0.2)
    said = []
    try:
        Hands(rig, None, lambda text, style: said.append(text)).tell_slow_waits()
        assert isinstance(rig.transport, SerialTransport)
        assert not hasattr(rig.transport, "slow_note")
        with pytest.raises(RigError, match="no answer from .* within"):
            rig.request(op="set", pin="bet1", level=1)
    finally:
        rig.close()
        os.close(slave)
        os.close(master)
    assert said == []

