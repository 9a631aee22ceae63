# How many seats each board the host runs wires. The board files own their
# wiring; the host reads them, never imports them (they import machine, or the
# virtual board's boot): the Pico's from its _SEATS, checked against its
# expanders, the virtual board's from its SEATS. A board never wires more than
# the game's table seats (uth.seats).
import ast
from pathlib import Path

from uth.seats import MAX_SEAT

from . import REPO, pico_image

SIM_BOARD = REPO / "boards" / "sim" / "board.py"


def _checked(count, path):
    if not 1 <= count <= MAX_SEAT:
        raise ValueError("%s wires %d seats; a table has 1 to %d" % (path, count, MAX_SEAT))
    return count


def pico_seats(path=pico_image.PIN_FILE):
    pins = pico_image.gpio_map(path)
    if "_SEATS" not in pins:
        raise ValueError("%s names no _SEATS = const(N)" % path)
    count = _checked(pins["_SEATS"][0], path)
    pico_image.wiring(path)  # its expanders carry that many seats, or ValueError
    return count


def sim_seats(path=SIM_BOARD):
    # The virtual board's module-level SEATS = const(N).
    for node in ast.parse(Path(path).read_text(), str(path)).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "SEATS" and isinstance(node.value, ast.Call)):
            return _checked(ast.literal_eval(node.value.args[0]), path)
    raise ValueError("%s names no SEATS = const(N)" % path)


def sim_expanders(path=SIM_BOARD):
    # The virtual board's EXPANDERS = (0x20, ...): the addresses a rig may fault.
    for node in ast.parse(Path(path).read_text(), str(path)).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "EXPANDERS"):
            return tuple(ast.literal_eval(node.value))
    raise ValueError("%s names no EXPANDERS" % path)
