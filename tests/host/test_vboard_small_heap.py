# The firmware's .mpy build on a heap too small for settlement: the virtual
# board (32-bit unix port) at an ESP32-WROOM-32's heap, as its board file
# states it, plus the virtual board's own overhead. From start-up the
# controller says in `status` that it refuses `round`, and refuses it so, rather
# than meeting a MemoryError in the middle of play.
import pytest

from uthctl.boards import heaps
from uthctl.boards.virtual import VirtualBoard
from uthctl.links.board_link import Link

WROOM_HEAP = 112 * 1024  # an ESP32-WROOM-32's GC heap after its one growth (docs/heap.md)
ROUND = {"round": "r-1", "dealer": ["Qs", "Ks"], "board": ["9s", "Ts", "Js", "9c", "9d"],
         "seats": [{"seat": 1, "cards": ["9h", "2c"], "wagers": {"trips": 500}}]}

def test_the_wrooms_heap_is_its_board_files():
    assert heaps.budget("esp32_devkitc", "WROOM_HEAP_BYTES") == WROOM_HEAP


@pytest.mark.board
@pytest.mark.usefixtures("micropython")
def test_on_a_wrooms_heap_round_is_refused_from_start_up_saying_why(tmp_path):
    heapsize = heaps.heapsize(WROOM_HEAP + heaps.SIM_OVERHEAD)
    with VirtualBoard(tmp_path / "flash.img", heapsize=heapsize) as board:
        with Link(board.serial_path, timeout=10.0) as link:
            link.wait_ready()
            heap = link.command("status")["heap"]
            reason = heap["settlement"]
            assert reason and reason.startswith("round refused"), heap
            assert 0 < heap["least_free"] <= heap["free"] < WROOM_HEAP
            reply = link.command("round", **ROUND)
            assert (reply["ok"], reply["error"]) == (False, reason), reply
            assert link.command("ping")["ok"]  # and the controller goes on
