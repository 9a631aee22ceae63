# The independent hit-value computation (independent_draws.py) against the
# firmware's (firmware/mystery/hitvalue.py) and the supervisor's twin of the
# sim board's seeded source (host_tools/uthctl/boards/virtual.py): a twin check, so
# the vboard tests, which use only the independent one, predict the board.
import hashlib

import pytest
from independent_draws import SeedStream, commitment, draw, seeded_draws, uniform_index

from mystery import hitvalue
from uthctl.boards.virtual import seeded_bytes

MICROS_PER_CENT = 10_000
A1 = (100 * 100, 200 * 100)  # 653b.1(c)(4): $100-$200, in cents
SEEDS = range(1, 401)
# A1, and ranges whose count of cent values is 1, a power of two or one off
# it, where the bit width and the byte count of a candidate change.
RANGES = [A1, (500, 501), (500, 502), (1000, 1256), (1000, 1257), (1000, 1255),
          (0, 65_536), (0, 65_537), (100, 300), (12_345, 9_876_543)]


def test_stream_is_sha256_of_seed_and_counter():
    take = SeedStream(7)
    expected = b"".join(hashlib.sha256(b"7:%d" % i).digest() for i in range(4))
    got = take(5) + take(30) + take(1) + take(0) + take(60) + take(32)
    assert got == expected


@pytest.mark.parametrize("seed", [1, 2, 653, 2**40 + 3])
def test_stream_matches_the_supervisor_twin(seed):
    mine, theirs = SeedStream(seed), seeded_bytes(seed)
    for n in [1, 2, 16, 31, 33, 64, 3, 0, 17, 100]:
        assert mine(n) == theirs(n)


def test_rejection_never_folds_a_candidate():
    # 5 values need 3 bits, one byte: 7, 6 and 5 are refused, not wrapped.
    source = iter([bytes([0xFF]), bytes([0x06]), bytes([0x0D]), bytes([0xFC])])
    assert uniform_index(lambda n: next(source), 5) == 4  # 0xFC & 7


def test_draw_stays_in_minimum_to_maximum_less_a_cent():
    for seed in SEEDS:
        for cents, salt in seeded_draws(seed, 500, 503, 3):
            assert 500 <= cents <= 502 and len(salt) == 32 and salt == salt.lower()


@pytest.mark.parametrize("low, high", RANGES)
def test_independent_draw_agrees_with_the_firmware(low, high):
    for seed in SEEDS:
        mine, theirs = SeedStream(seed), seeded_bytes(seed)
        for _ in range(3):  # later draws: the stream is shared, not restarted
            cents, salt = draw(mine, low, high)
            value, their_salt = hitvalue.draw(theirs, low * MICROS_PER_CENT,
                                              high * MICROS_PER_CENT)
            assert (cents * MICROS_PER_CENT, salt) == (value, their_salt), seed
            assert commitment(cents, salt) == hitvalue.commitment(value, their_salt)


def test_commitment_is_sha256_of_cents_and_salt():
    salt = "00112233445566778899aabbccddeeff"
    text = b"12345:00112233445566778899aabbccddeeff"
    assert commitment(12345, salt) == hashlib.sha256(text).hexdigest()
