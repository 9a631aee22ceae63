# pytest: the firmware's logic imports `micropython`; uthctl installs the shim.
import pytest
from slow_logic import SLOW_MODULES

import uthctl  # noqa: F401


# The board the scenario tests drive (tests/host/conftest.py reads it),
# defined here so that `pytest --target ...` is known from the root too.
def pytest_addoption(parser):
    parser.addoption("--target", choices=("sim", "pico", "both"), default="sim",
                     help="the board the scenario tests drive: sim (the virtual board, the "
                     "default), pico (the emulated Pico) or both")


def pytest_collection_modifyitems(items):
    # The logic tests cannot import pytest (MicroPython runs them too), so
    # their long modules are named in slow_logic.py and marked here.
    for item in items:
        if item.path.parent.name == "logic" and item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
