# TEST ONLY, never part of the project's build: copied to an emulated Pico's
# flash as /boot.py by tests/host/test_pico_board.py, which writes the seed
# in the line below. It swaps the controller's random source (os.urandom) for
# the seeded stream the virtual board's tests use (boards/sim/board.py,
# UTH_SIM_SEED; tests/host/independent_draws.py), so a test foresees the hit
# value on the real image. boot.py runs before main.py in one interpreter, so
# main.py's `import board` finds the module as changed here. The seeded source
# is boards/sim/seeded_bytes.py, copied beside it (pico_target.py).
import board
from seeded_bytes import SeededBytes

SEED = 0

_build = board.build


def _seeded_build():
    built = _build()
    built.random_bytes = SeededBytes(SEED)
    return built


board.build = _seeded_build
