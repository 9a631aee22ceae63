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


def pytest_terminal_summary(terminalreporter):
    # One line a run when the emulated Pico's tests were skipped, and why
    # (without -rs pytest would only count them).
    from uthctl import pico_image

    reason = pico_image.unavailable()
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if "test_pico_" in report.nodeid]
    if reason is not None and skipped:
        terminalreporter.write_line("emulated Pico: %d tests skipped: %s" % (len(skipped), reason))
