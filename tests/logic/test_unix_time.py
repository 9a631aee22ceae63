# A hit's time reaches the host as seconds from 1970-01-01 UTC on every port
# (table/unix_time.py): the ESP32 port counts time.time() from 2000, and the
# host reads a hit's time with time.gmtime. The gap is counted here by hand:
# thirty years of 365 days and the seven leap days of 1972-1996.
import time

from table.unix_time import unix_clock

SECONDS_1970_TO_2000 = (30 * 365 + 7) * 24 * 3600
EPOCH_2000 = (2000, 1, 1, 0, 0, 0, 5, 1)  # gmtime(0) on the ESP32 port: a Saturday
EPOCH_1970 = (1970, 1, 1, 0, 0, 0, 3, 1)  # on the rp2 and unix ports, and CPython


def _gmtime_from(epoch):
    return lambda seconds: epoch


def test_an_esp32_clock_is_moved_to_1970():
    # 2026-12-04 00:00 UTC as the ESP32 port counts it, from 2000-01-01.
    esp32_seconds = (26 * 365 + 7) * 24 * 3600 + 337 * 24 * 3600
    now = unix_clock(lambda: esp32_seconds, _gmtime_from(EPOCH_2000))
    assert now() == esp32_seconds + SECONDS_1970_TO_2000
    assert time.gmtime(now())[:3] == (2026, 12, 4)


def test_a_clock_that_counts_from_1970_is_kept_as_it_is():
    clock = lambda: 1_795_000_000  # noqa: E731
    assert unix_clock(clock, _gmtime_from(EPOCH_1970)) is clock


def test_the_interpreter_running_this_counts_from_1970():
    # CPython and the unix port: the clock given back is time.time itself.
    assert unix_clock() is time.time
