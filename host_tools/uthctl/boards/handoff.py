# The way to a running controller's REPL on a board the host runs (the
# virtual board, the emulated Pico and ESP32), as a technician takes it at a
# table: the key switch held through the board's rig, the host link's `repl`
# (docs/host-link.md, "The REPL"), the key released. Outside service mode no
# byte reaches the REPL, so every tool and test that runs mpremote on a
# running controller comes this way first.
import time

from ..links.board_link import Link
from ..links.rig import Rig, RigError

SERVICE = "service"


def hand_to_repl(port, rig_address, timeout=10.0):
    # The board's reply to `repl` ({"seq": ..., "exposed": ...}); the key
    # released. RuntimeError when the board will not hand over its port.
    with Rig(rig_address, timeout=timeout) as rig:
        return hand_over(port, rig, timeout)


def hand_over(port, rig, timeout=10.0):
    # The same through a rig already open (a rig Pico's, say). A key held
    # with a hit pending validates it first, as at a table.
    rig.key(True)
    try:
        with Link(port, timeout=timeout) as link:
            _wait_for_service(link, timeout)
            reply = link.command("repl")
    finally:
        _release(rig)
    if not reply.get("ok"):
        raise RuntimeError("the board at %s did not hand over its REPL: %s"
                           % (port, reply.get("error")))
    return reply


def _release(rig):
    # The key released; nothing reads it once the port is the REPL's. An
    # emulated Pico run off the wall clock (realtime=False) whose chip sleeps
    # at the REPL may leave the rig's set unanswered: the chip's clock it
    # waits on stands still. Its level no longer matters, so that is no error.
    try:
        rig.key(False)
    except RigError:
        pass


def _wait_for_service(link, timeout):
    # The key is read after its debounce: a few of the controller's ticks.
    deadline = time.monotonic() + timeout
    while True:
        state = link.command("status").get("state")
        if state in (SERVICE, "fault"):
            return
        if time.monotonic() > deadline:
            raise RuntimeError("the board at %s is %s, not in service mode, with the key "
                               "held" % (link.port, state))
        time.sleep(0.05)
