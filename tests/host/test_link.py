# The host link's reading of what a board at its REPL sends back, over a
# pseudo-terminal this test writes as the board would.
import os
import threading

import pytest

from uthctl.links.board_link import Link, LinkError


@pytest.fixture
def board_end():
    # (the board's end of a pty, the link on the host's end)
    board, host = os.openpty()
    link = Link(os.ttyname(host), timeout=3.0)
    os.read(board, 64)  # the "\r\n" the link sends first
    yield board, link
    link.close()
    os.close(board)
    os.close(host)


def test_a_prompt_left_without_a_line_end_does_not_swallow_the_next_line(board_end):
    # A board reset at its REPL: the prompt stays in the link's buffer, and
    # the restarted controller's first event follows it on the same line.
    board, link = board_end
    os.write(board, b">>> ")
    assert link.read_message(0.2) is None
    os.write(board, b'{"ev": "started", "state": "betting"}\r\n')
    assert link.read_message(2.0) == {"ev": "started", "state": "betting"}
    assert link.at_repl is None


def test_a_command_echoed_at_the_prompt_is_not_a_reply(board_end):
    board, link = board_end

    def repl():
        # The friendly REPL: the line echoed after the prompt, then evaluated.
        line = b""
        while not line.endswith(b"\r\n"):
            line += os.read(board, 256)
        os.write(board, b">>> " + line + b"{'id': 1, 'cmd': 'ping'}\r\n>>> ")

    thread = threading.Thread(target=repl)
    thread.start()
    with pytest.raises(LinkError, match="it echoed the command line"):
        link.command("ping")
    thread.join(5.0)
    assert link.at_repl == "its >>> prompt"
