# `uthctl rig` on an emulated chip far behind the wall clock: once the wall's
# seconds are up and the chip's are not, the person is told it waits on the
# chip, once, and the answer is still taken when it comes.
import socket

import pytest

from uthctl.links.rig_transport import SLOW_NOTE, RigError, SocketTransport, parse_address


class CrawlingChip:
    # A chip clock a thousandth of a second further on at each look; after
    # `looks` it reads as off, which ends a wait that nothing else ends.
    def __init__(self, looks):
        self.looks, self.t = looks, 100.0

    def now(self):
        self.looks -= 1
        self.t += 0.001
        return self.t if self.looks >= 0 else None

    def close(self):
        pass


@pytest.fixture
def rig_port():
    server = socket.create_server(("127.0.0.1", 0))
    yield server
    server.close()


def test_a_wait_on_a_slow_chip_is_told_once_and_its_answer_taken(rig_port):
    transport = SocketTransport("127.0.0.1:%d" % rig_port.getsockname()[1], timeout=0.2)
    board_side, _ = rig_port.accept()
    transport.chip_clock = CrawlingChip(looks=8)
    notes = []

    def note(line):
        notes.append(line)
        board_side.sendall(b'{"ok": true}\n')  # the chip answers once the person is told

    transport.slow_note = note
    try:
        assert transport.read_line() == b'{"ok": true}'
    finally:
        transport.close()
        board_side.close()
    assert notes == [SLOW_NOTE % 0.2]
    assert "waiting for 0.2 s of its clock" in notes[0]


def test_with_no_one_to_tell_the_wait_ends_as_before(rig_port):
    transport = SocketTransport("127.0.0.1:%d" % rig_port.getsockname()[1], timeout=0.2)
    board_side, _ = rig_port.accept()
    transport.chip_clock = CrawlingChip(looks=2)
    try:
        with pytest.raises(RigError, match="no answer within"):
            transport.read_line()
    finally:
        transport.close()
        board_side.close()


def test_a_rig_address_that_is_not_text_is_refused_plainly():
    with pytest.raises(ValueError, match="HOST:PORT or PORT, not"):
        parse_address(("127.0.0.1", 4000))
