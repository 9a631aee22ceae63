# The floor page's logins, throttled per name and per address: the first
# FREE_FAILURES wrong passwords cost nothing, then each further one locks
# that name (and that address) out for twice as long as the last, from
# FIRST_LOCK_S up to MOST_LOCK_S. While locked, even the right password is
# turned away, so guessing runs at the lock's pace whatever the guesser does.
import threading
import time

FREE_FAILURES = 5
FIRST_LOCK_S = 2.0
MOST_LOCK_S = 15 * 60.0
KEPT = 10_000  # keys remembered before the quiet ones are forgotten


class Throttle:
    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.failures = {}  # key -> (failures, time of the last)
        self.lock = threading.Lock()

    def wait_s(self, keys):
        # How long the most locked of these keys has still to wait (0: none).
        now = self.clock()
        with self.lock:
            return max([self._locked_until(key) - now for key in keys] + [0.0])

    def failed(self, keys):
        # One more failure for each key; the most failures among them.
        now = self.clock()
        with self.lock:
            if len(self.failures) >= KEPT:
                self._forget_quiet(now)
            for key in keys:
                self.failures[key] = (self.failures.get(key, (0, now))[0] + 1, now)
            return max(self.failures[key][0] for key in keys)

    def succeeded(self, key):
        with self.lock:
            self.failures.pop(key, None)

    def _locked_until(self, key):
        count, last = self.failures.get(key, (0, 0.0))
        if count < FREE_FAILURES:
            return 0.0
        return last + lock_s(count)

    def _forget_quiet(self, now):
        for key, (_count, last) in list(self.failures.items()):
            if now - last > MOST_LOCK_S:
                del self.failures[key]


def lock_s(failures):
    # The lock after this many failures in a row.
    if failures < FREE_FAILURES:
        return 0.0
    doublings = min(failures - FREE_FAILURES, 32)  # past MOST_LOCK_S long before
    return min(FIRST_LOCK_S * 2**doublings, MOST_LOCK_S)
