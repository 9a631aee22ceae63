# pytest: the firmware's logic imports `micropython`; uthctl installs the shim.
import pytest
from hypothesis import settings
from skip_gate import SkipGate
from slow_logic import SLOW_MODULES

import uthctl  # noqa: F401

# No wall-clock limit in a test, hypothesis's 200 ms an example included: its
# deadline off for every test, on top of whichever profile is in force
# (hypothesis's own "ci" one under CI=true: derandomized, no example database).
settings.register_profile("uth", settings.default, deadline=None)
settings.load_profile("uth")


# The board the scenario tests drive (tests/host/conftest.py and
# tests/hil/conftest.py read it), defined here so that `pytest --target ...`
# is known from the root too.
def pytest_addoption(parser):
    parser.addoption("--target", choices=("sim", "pico", "esp32", "both", "real", "pair"),
                     default="sim",
                     help="the board the scenario tests drive: sim (the virtual board, the "
                     "default), pico (the emulated Pico), esp32 (the emulated ESP32), both "
                     "(sim and pico); for tests/hil also real (a controller on --port and a rig "
                     "Pico on --rig) or pair (two emulated "
                     "Picos wired pin to pin, standing in for real)")
    parser.addoption("--port", help="--target real: the controller's serial device")
    parser.addoption("--rig", help="--target real: the rig Pico's serial device")


def pytest_configure(config):
    # Skips counted and named at the end; under CI=true one not in
    # tests/ci_skips.py fails the run (tests/skip_gate.py).
    config.pluginmanager.register(SkipGate(), "uth-skip-gate")


def pytest_collection_modifyitems(items):
    # The logic tests cannot import pytest (MicroPython runs them too), so
    # their long modules are named in slow_logic.py and marked here.
    for item in items:
        if item.path.parent.name == "logic" and item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


# Fixtures the board tests of tests/host and tests/hil share.
@pytest.fixture(scope="module")
def micropython():
    # `make test` installs MicroPython: without it these tests fail, never skip.
    from uthctl.boards.virtual import find_micropython

    try:
        return find_micropython()
    except OSError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="session")
def esp32_images(tmp_path_factory):
    # The emulated ESP32's flash files, made once a session (tests/host/targets.py).
    from targets import Esp32Images

    return Esp32Images(tmp_path_factory.mktemp("esp32-images"))


@pytest.fixture(scope="session")
def pico_images(tmp_path_factory):
    # The deployed project's flash images, made once a session (tests/host/targets.py).
    from targets import PicoImages

    return PicoImages(tmp_path_factory.mktemp("pico-images"))
