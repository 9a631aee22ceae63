# The firmware's .mpy build on a heap too small for settlement: the virtual
# board (32-bit unix port) at 112 KB (once taken from sources for an
# ESP32-WROOM-32's heap) plus the virtual board's own overhead. From start-up the
# controller says in `status` that it refuses `round`, and refuses it so, rather
# than meeting a MemoryError in the middle of play. At the WROOM's heap as its
# board file states it, measured on the official image (166,592 bytes), it does not.
import pytest

from uthctl.boards import heaps
from uthctl.boards.virtual import VirtualBoard
from uthctl.links.board_link import Link

SMALL_HEAP = 112 * 1024  # below table/heap.py's SETTLE_HEAP
WROOM_HEAP = 166_592  # ESP32_GENERIC's GC heap at its REPL on the emulated ESP32 (docs/heap.md)
ROUND = {"round": "r-1", "dealer": ["Qs", "Ks"], "board": ["9s", "Ts", "Js", "9c", "9d"],
         "seats": [{"seat": 1, "cards": ["9h", "2c"], "wagers": {"trips": 500}}]}

def test_the_wrooms_heap_is_its_board_files():
    assert heaps.budget("esp32_devkitc", "WROOM_HEAP_BYTES") == WROOM_HEAP


@pytest.mark.board
@pytest.mark.usefixtures("micropython")
def test_on_a_small_heap_round_is_refused_from_start_up_saying_why(tmp_path):
    heapsize = heaps.heapsize(SMALL_HEAP + heaps.SIM_OVERHEAD)
    with VirtualBoard(tmp_path / "flash.img", heapsize=heapsize) as board:
        with Link(board.serial_path, timeout=10.0) as link:
            link.wait_ready()
            heap = link.command("status")["heap"]
            reason = heap["settlement"]
            assert reason and reason.startswith("round refused"), heap
            assert 0 < heap["least_free"] <= heap["free"] < SMALL_HEAP
            reply = link.command("round", **ROUND)
            assert (reply["ok"], reply["error"]) == (False, reason), reply
            assert link.command("ping")["ok"]  # and the controller goes on


@pytest.mark.board
@pytest.mark.usefixtures("micropython")
def test_on_the_wrooms_measured_heap_round_is_not_refused(tmp_path):
    heapsize = heaps.heapsize(WROOM_HEAP + heaps.SIM_OVERHEAD)
    with VirtualBoard(tmp_path / "flash.img", heapsize=heapsize) as board:
        with Link(board.serial_path, timeout=10.0) as link:
            link.wait_ready()
            heap = link.command("status")["heap"]
            assert heap["settlement"] is None, heap
            reply = link.command("round", **ROUND)
            # Unconfigured, no paytable: the rules answer, not the heap.
            assert not reply["ok"] and "round refused" not in reply["error"], reply
