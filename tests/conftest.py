# pytest: the firmware's logic imports `micropython`; uthctl installs the shim.
import uthctl  # noqa: F401


# The board the scenario tests drive (tests/host/conftest.py reads it),
# defined here so that `pytest --target ...` is known from the root too.
def pytest_addoption(parser):
    parser.addoption("--target", choices=("sim", "pico", "both"), default="sim",
                     help="the board the scenario tests drive: sim (the virtual board, the "
                     "default), pico (the emulated Pico) or both")
