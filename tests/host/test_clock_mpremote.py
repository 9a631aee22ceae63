# `uthctl clock` with the controller stopped runs mpremote's rtc commands: one that
# hangs is a clear error naming the wait, not an internal one, and the wait grows
# with --timeout for a slower board (on the emulated ESP32 under load, `mpremote
# rtc` took longer than the fixed 30 s and the command ended "a bug in uthctl").
import subprocess

import pytest

from uthctl.commands import clock
from uthctl.errors import UthctlError


def test_a_hung_mpremote_is_a_clear_error(monkeypatch):
    waits = []

    def hangs(argv, timeout, **_):
        assert argv[2:] == ["/dev/ttyX", "resume", "rtc"], argv  # no soft reset first
        waits.append(timeout)
        raise subprocess.TimeoutExpired(argv, timeout)

    monkeypatch.setattr(clock.subprocess, "run", hangs)
    with pytest.raises(UthctlError, match=r"mpremote rtc got no answer from /dev/ttyX "
                                          r"within 30 s .*--timeout"):
        clock._by_mpremote("/dev/ttyX", False)
    assert waits == [30.0]


def test_the_wait_is_thirty_seconds_at_the_default_timeout_and_grows_with_it():
    assert clock.mpremote_wait(5.0) == 30.0
    assert clock.mpremote_wait(1.0) == 30.0
    assert clock.mpremote_wait(60.0) == 360.0
