"""Each board's heap budget, as its board file states it, and the unix port's heap for it.

A board file (boards/<board>/board.py) names its GC heap in HEAP_BYTES: what
gc.mem_free() + gc.mem_alloc() gives on that board. The 32-bit unix port's
`-X heapsize=N` is the whole area, of which the GC's block tables take 1/65 and
rounding a little more, so heapsize() asks for a little more than the budget.
"""

from . import REPO
from .board_source import constant

# The boards that run the controller, each with its board file.
CONTROLLER_BOARDS = ("rp2040_pico", "esp32_devkitc")
# The virtual board's own boot, littlefs mount, wire and models on top of the
# firmware's heap (boards/sim; measured by bench/sim_overhead.py, docs/heap.md).
SIM_OVERHEAD = constant("HEAP_OVERHEAD", REPO / "boards" / "sim" / "board.py")
# Per 16-byte block the GC keeps 2 bits of allocation table and 1 of finalisers.
_AREA_PER_BLOCK = 16 + 3 / 8
_ROUNDING = 64


def board_file(board):
    return REPO / "boards" / board / "board.py"


def budget(board, name="HEAP_BYTES"):
    """The GC heap, in bytes, board's file states (name: another such constant)."""
    return constant(name, board_file(board))


def smallest(boards=CONTROLLER_BOARDS):
    """(board, bytes): the board with the smallest heap of those given."""
    return min(((budget(board), board) for board in boards))[::-1]


def heapsize(gc_bytes):
    """The unix port's -X heapsize value whose GC heap holds at least gc_bytes."""
    return str(int(gc_bytes * _AREA_PER_BLOCK / 16) + _ROUNDING)


def sim_heapsize():
    """The virtual board's: the Pico's heap plus the virtual board's own overhead."""
    return heapsize(budget("rp2040_pico") + SIM_OVERHEAD)
