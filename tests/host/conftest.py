# Fixtures the virtual-board tests share.
import pytest

from uthctl.vboard import find_micropython


@pytest.fixture(scope="module")
def micropython():
    # `make test` installs MicroPython: without it these tests fail, never skip.
    try:
        return find_micropython()
    except OSError as error:
        pytest.fail(str(error), pytrace=False)
