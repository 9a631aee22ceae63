# What the board gathers for its generator (drbg.py): the board's random
# source (os.urandom: esp_random() on an ESP32, pico_rand on an RP2040) and
# the microsecond timing of the table's inputs, which inputs.py notes at
# every edge of LOCK, the key switch and the chip sensors. The timings are
# folded into a SHA-256 as they come and go into the next reseed as its
# additional input, credited with no entropy of their own: the generator's
# strength rests on the instantiation's 256 bits and on the board's source
# (docs/mystery.md, "What each board gathers").
import hashlib

from micropython import const

RESEED_BYTES = const(32)  # from the board's source at each draw
NONCE_BYTES = const(16)

try:
    from time import ticks_us
except ImportError:  # CPython, running the firmware's logic
    from time import perf_counter_ns

    def ticks_us():
        return (perf_counter_ns() // 1000) & 0x3FFFFFFF

_timings = [hashlib.sha256(), 0]  # [the fold so far, how many noted]


def note():
    # An input's edge, at the microsecond it was seen.
    _timings[0].update(ticks_us().to_bytes(4, "big"))
    _timings[1] += 1


def _timing_digest():
    # The fold of every timing noted since the last, with the time now; starts anew.
    fold, count = _timings
    fold.update(ticks_us().to_bytes(4, "big") + count.to_bytes(4, "big"))
    _timings[0], _timings[1] = hashlib.sha256(), 0
    return fold.digest()


def for_reseed(random_bytes):
    # (entropy input, additional input) for HmacDrbg.reseed at a draw.
    return random_bytes(RESEED_BYTES), _timing_digest()


def for_instantiation(random_bytes, host_bytes):
    # (entropy input, nonce, personalization): the board's own 256 bits and
    # the technician's host's, so that either alone seeds a strong state.
    return (random_bytes(RESEED_BYTES) + host_bytes, random_bytes(NONCE_BYTES),
            b"uth table" + _timing_digest())
