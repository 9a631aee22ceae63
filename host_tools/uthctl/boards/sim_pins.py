# The virtual board's pins, as boards/sim/board.py wires them: the seats,
# the inputs a rig may set, and the levels a table starts with. The
# emulated ESP32's stand-ins speak the same wire (sim_wire.py).
from .seats import sim_seats

SEATS = sim_seats()  # boards/sim/board.py wires them
INPUTS = tuple("bet%d" % n for n in range(1, SEATS + 1)) + tuple(
    "uth%d" % n for n in range(1, SEATS + 1)) + ("lock", "key", "door")
# A virtual table starts with every seat's UTH chip in place, so a rig that
# places only progressive chips plays qualifying seats; it clears uthN to test
# that a progressive chip alone does not qualify. Its door ("door" 1: open)
# starts shut.
INITIAL_LEVELS = dict({name: 0 for name in INPUTS},
                      **{"uth%d" % n: 1 for n in range(1, SEATS + 1)})
