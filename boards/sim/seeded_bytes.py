# TEST ONLY, never for play: the seeded random source that stands in for a
# board's os.urandom, so a test can foresee the hit values drawn. SHA-256 of
# "SEED:COUNTER" as a byte stream. The one copy: the virtual board imports it
# (UTH_SIM_SEED), the emulated Pico's test and bench /boot.py carry its text
# ahead of their own (tests/host/pico_target.py, bench/pico_bench.py), the
# host reads it to foresee a board's draws (uthctl.boards.virtual), and
# tests/host/independent_draws.py holds it to an independent computation.
import hashlib


class SeededBytes:
    def __init__(self, seed):
        self.seed = seed
        self.counter = 0
        self.pool = b""

    def __call__(self, n):
        while len(self.pool) < n:
            text = "%d:%d" % (self.seed, self.counter)
            self.pool += hashlib.sha256(text.encode()).digest()
            self.counter += 1
        out, self.pool = self.pool[:n], self.pool[n:]
        return out
