# The polled debouncer: the first edge acts at once, then the pin is left
# alone for the settle time, so a bouncing contact reads as one change.
from fakes import Pin
from table.clock import ticks_add, ticks_diff
from table.inputs import FALL, RISE, Debounced


def _edges(pin, levels, settle_ms=30, start=0):
    # levels: the pin's level at each millisecond; returns (ms, edge) pairs.
    debounced = Debounced(pin, settle_ms, start)
    edges = []
    for ms, level in enumerate(levels):
        pin.level = level
        edge = debounced.poll(ticks_add(start, ms))
        if edge:
            edges.append((ms, edge))
    return edges


def test_a_bouncing_press_is_one_rise_acted_on_at_once():
    bounce = [0, 1, 0, 1, 1, 0, 1, 0, 1] + [1] * 50
    assert _edges(Pin(), bounce) == [(1, RISE)]


def test_a_release_after_the_settle_time_is_seen():
    levels = [1] * 40 + [0, 1, 0] + [0] * 40
    assert _edges(Pin(), [0] + levels) == [(1, RISE), (41, FALL)]


def test_a_change_inside_the_settle_time_waits_for_it_to_end():
    # Pressed at 1 ms, released at 10 ms: the release is read at 31 ms.
    levels = [0] + [1] * 9 + [0] * 40
    assert _edges(Pin(), levels) == [(1, RISE), (31, FALL)]


def test_ticks_wrap_like_micropythons():
    start = (1 << 30) - 10  # ten milliseconds before ticks_ms wraps
    assert ticks_diff(ticks_add(start, 25), start) == 25
    assert _edges(Pin(), [0, 1] + [1] * 40 + [0] * 5, start=start) == [(1, RISE), (42, FALL)]


DAY_MS = 24 * 3600 * 1000
MINUTE_MS = 60_000


def test_a_pin_left_alone_for_weeks_still_acts_at_once():
    # ticks_ms wraps at 2**30 ms (12.4 days) and ticks_diff is right only up
    # to 2**29 (6.2 days): idle spans on either side of those, polled every
    # minute from just before a wrap, then the pin changes.
    for days in (1, 6, 7, 12, 13, 20, 30):
        pin = Pin()
        start = (1 << 30) - 5 * MINUTE_MS
        debounced = Debounced(pin, 30, start)
        elapsed = 0
        while elapsed < days * DAY_MS:
            elapsed += MINUTE_MS
            now = ticks_add(start, elapsed)
            assert debounced.poll(now) == 0
            # Never negative; past the controller's longest wait (2 s) once it has passed.
            assert debounced.held_ms(now) >= min(elapsed, 2000), (days, elapsed)
        pin.level = 1
        assert debounced.poll(ticks_add(start, elapsed + 5)) == RISE, days
        assert debounced.held_ms(ticks_add(start, elapsed + 5)) == 0
        pin.level = 0  # and the settle time after that edge ends as it should
        assert debounced.poll(ticks_add(start, elapsed + 34)) == 0
        assert debounced.poll(ticks_add(start, elapsed + 35)) == FALL, days
