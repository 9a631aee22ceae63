# The virtual board's clock (boards/sim/simboot.py) on the unix-port
# MicroPython: machine.RTC().datetime() sets and reads it as a board's
# 8-tuple, and time.time()/gmtime()/localtime()/mktime() follow it, across
# leap days and centuries; a later interpreter run (a reset) keeps it.
# Expected values come from CPython's calendar and datetime.
import calendar
import datetime
import os
import subprocess

import pytest

from uthctl.boards.virtual import REPO, find_micropython

DATES = [(2000, 2, 29, 23, 59, 58), (2024, 12, 31, 12, 0, 0), (2100, 3, 1, 0, 0, 1),
         (1999, 1, 1, 6, 30, 0), (2038, 1, 19, 3, 14, 8), (2026, 7, 4, 9, 8, 7)]

SET_AND_READ = """
import simboot
simboot.boot()
import machine, time
for t in %r:
    machine.RTC().datetime((t[0], t[1], t[2], 0, t[3], t[4], t[5], 0))
    now = time.time()
    print(now, machine.RTC().datetime(), time.localtime(now)[:6], time.mktime(t + (0, 0)))
"""

READ = """
import simboot
simboot.boot()
import machine, time
print(time.time(), machine.RTC().datetime())
"""

pytestmark = [pytest.mark.usefixtures("micropython"), pytest.mark.target("sim")]


def run(script, tmp_path):
    env = dict(os.environ, MICROPYPATH=str(REPO / "boards" / "sim"),
               UTH_SIM_FLASH=str(tmp_path / "flash.img"), UTH_SIM_RTC=str(tmp_path / "rtc"))
    done = subprocess.run([find_micropython(), "-c", script], capture_output=True, text=True,
                          timeout=60, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def parse(line):
    # "SECONDS (8-tuple) (6-tuple) SECONDS" as the board prints them.
    seconds, rest = line.split(" ", 1)
    rtc, rest = rest.split(") ", 1)
    local, mktime = rest.rsplit(" ", 1)
    as_ints = [int(v) for v in rtc.strip("(").split(",")]
    return int(seconds), as_ints, [int(v) for v in local.strip("()").split(",")], int(mktime)


def expected_tuple(seconds):
    when = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return [when.year, when.month, when.day, when.weekday(), when.hour, when.minute,
            when.second, 0]


def test_sim_rtc_sets_the_boards_clock_on_any_date(tmp_path):
    lines = run(SET_AND_READ % (DATES,), tmp_path)
    assert len(lines) == len(DATES)
    for date, line in zip(DATES, lines, strict=True):
        now, rtc, local, mktime = parse(line)
        want = calendar.timegm(date)
        assert mktime == want, (date, line)
        assert want <= now <= want + 1, (date, line)  # a second may tick meanwhile
        assert rtc == expected_tuple(now) or rtc == expected_tuple(now + 1), (date, line)
        assert local == expected_tuple(now)[:3] + expected_tuple(now)[4:7], (date, line)

    # The next run (a reset) reads the same clock: the last date set, a moment on.
    now, rtc = run(READ, tmp_path)[0].split(" ", 1)
    assert calendar.timegm(DATES[-1]) <= int(now) <= calendar.timegm(DATES[-1]) + 60
