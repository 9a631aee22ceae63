# The virtual board's faster clock (boards/sim/fastclock.py), on the unix
# port it runs on: its milliseconds are RATE times the host's, read between
# two host readings; they wrap at 2**30 as MicroPython's ticks do; and a task
# sleeping on it wakes no earlier than asked, on its clock, while the host's
# time spent is RATE times shorter.
import json
import os
import subprocess
from pathlib import Path

from uthctl.boards.virtual import find_micropython

REPO = Path(__file__).resolve().parents[2]
SCRIPT = r"""
import asyncio, json, time
import fastclock
from fastclock import FastClock

class HostTime:
    # The host's clock as fastclock sees it, each sleep_us it asks for kept.
    asked_us = []
    def __getattr__(self, name):
        return getattr(time, name)
    def sleep_us(self, us):
        self.asked_us.append(us)
        time.sleep_us(us)

class HostLoop:
    # asyncio as fastclock sees it: each sleep it asks the loop for, kept (in us).
    def __getattr__(self, name):
        return getattr(asyncio, name)
    def sleep_ms(self, ms):
        HostTime.asked_us.append(ms * 1000)
        return asyncio.sleep_ms(ms)
    def sleep(self, s):
        HostTime.asked_us.append(int(s * 1_000_000))
        return asyncio.sleep(s)

fastclock.time = HostTime()
fastclock.asyncio = HostLoop()
RATE = 50
clock = FastClock(RATE)
before = (time.ticks_us(), clock.ticks_ms(), time.ticks_us())
time.sleep_ms(40)
after = (time.ticks_us(), clock.ticks_ms(), time.ticks_us())

wakes = {"a": [], "b": []}

async def sleeper(name, times):
    for _ in range(times):
        await clock.sleep_ms(5)
        wakes[name].append(clock.ticks_ms())

async def main():
    other = asyncio.create_task(sleeper("b", 100))
    await sleeper("a", 100)
    await other

host_start = time.ticks_us()
clock_start = clock._advance()
HostTime.asked_us.clear()
asyncio.run(main())
clock_spent = clock._advance() - clock_start
host_spent = time.ticks_diff(time.ticks_us(), host_start)
asked = sum(HostTime.asked_us)

clock.ticks_ms()
clock.micros = ((1 << 30) - 3) * 1000  # 3 ms before the wrap
wrapped = [(time.ticks_us(), clock.ticks_ms(), time.ticks_us())]
time.sleep_ms(2)
wrapped.append((time.ticks_us(), clock.ticks_ms(), time.ticks_us()))
print(json.dumps({"before": before, "after": after, "wakes": wakes, "host_us": host_spent,
                  "clock_us": clock_spent, "asked_us": asked, "wrapped": wrapped, "rate": RATE}))
"""


def run_script():
    env = dict(os.environ, MICROPYPATH=".frozen:" + str(REPO / "boards" / "sim"))
    done = subprocess.run([find_micropython(), "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_the_fast_clock_runs_rate_times_the_hosts():
    out = run_script()
    rate = out["rate"]
    assert_rate(out["before"], out["after"], rate)
    assert out["after"][1] - out["before"][1] >= 30 * rate  # the host slept ~40 ms
    for name in ("a", "b"):
        wakes = out["wakes"][name]
        assert len(wakes) == 100
        assert all(later - earlier >= 5 for earlier, later in zip(wakes, wakes[1:], strict=False))
    # 100 sleeps of 5 ms on the clock: 500 ms of it, 10 ms of the host's at 50x.
    assert out["clock_us"] >= 500_000
    assert out["host_us"] >= 500_000 // rate
    # The host (its sleeps and the loop's) is asked to sleep RATE times less
    # than the clock moved, never
    # the 500 ms its own 5 ms sleeps would take (how long the host then took
    # is its load's business, not the clock's). At 50x a 5 ms sleep is 100 us
    # of the host's, all of it spent in turns of the loop (_OVERSLEEP_US).
    assert out["asked_us"] <= out["clock_us"] // rate
    # Across the wrap: small numbers again, the same pace.
    low, high = out["wrapped"]
    assert (1 << 30) - 3 <= low[1] < 1 << 30 and high[1] < low[1]
    assert_rate(low, high, rate, period=1 << 30)


def assert_rate(before, after, rate, period=None):
    # Its milliseconds between two readings are RATE times the host's
    # microseconds between them, bounded by the host readings around each.
    (us_a0, ms0, us_b0), (us_a1, ms1, us_b1) = before, after
    passed = ms1 - ms0 if period is None else (ms1 - ms0) % period
    shortest, longest = (us_a1 - us_b0) * rate / 1000, (us_b1 - us_a0) * rate / 1000
    assert shortest - 1 <= passed <= longest + 1
