# How many seats each board the host runs wires. The board files own their
# wiring; the host reads them, never imports them (they import machine, or the
# virtual board's boot): the Pico's from its pin map, the virtual board's from
# its SEATS. A board never wires more than the game's table seats (uth.seats).
import ast
from pathlib import Path

from uth.seats import MAX_SEAT

from . import REPO, pico_image

SIM_BOARD = REPO / "boards" / "sim" / "board.py"
# One bet sensor, bet light and jackpot light a seat, seats 1..N in order.
_PICO_SEAT_PINS = ("_GP_BET", "_GP_BET_LIGHT", "_GP_JACKPOT_LIGHT")


def _checked(count, path):
    if not 1 <= count <= MAX_SEAT:
        raise ValueError("%s wires %d seats; a table has 1 to %d" % (path, count, MAX_SEAT))
    return count


def pico_seats(path=pico_image.PIN_FILE):
    pins = pico_image.gpio_map(path)
    counts = {len(pins[name]) for name in _PICO_SEAT_PINS}
    if len(counts) != 1:
        raise ValueError("%s: %s differ in length" % (path, ", ".join(_PICO_SEAT_PINS)))
    return _checked(counts.pop(), path)


def sim_seats(path=SIM_BOARD):
    # The virtual board's module-level SEATS = const(N).
    for node in ast.parse(Path(path).read_text(), str(path)).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "SEATS" and isinstance(node.value, ast.Call)):
            return _checked(ast.literal_eval(node.value.args[0]), path)
    raise ValueError("%s names no SEATS = const(N)" % path)
