# The hit value's draw: uniform by rejection sampling, never by a modulo.
import binascii
import hashlib

from mystery.hitvalue import commitment, draw, draw_cents
from scripted import ScriptedBytes


def test_every_byte_value_gives_each_outcome_equally_often():
    # 5 outcomes need 3 bits: of the 256 bytes, 32 end in each of 0..4 and the
    # rest (ending in 5..7) are rejected, so each outcome comes 32 times.
    counts = [0] * 5
    rejected = 0
    for byte in range(256):
        try:
            counts[draw_cents(ScriptedBytes([bytes([byte])]), 1000, 5) - 1000] += 1
        except IndexError:  # it asked for more bytes: this one was rejected
            rejected += 1
    assert counts == [32, 32, 32, 32, 32] and rejected == 96


def test_out_of_range_draws_are_redrawn_not_folded():
    # A1 spans 10,000 cent values: 14 bits. 0x3FFF (16,383) is redrawn.
    source = ScriptedBytes([b"\x3f\xff", b"\xff\xff", b"\x13\x88", bytes(16)])
    value, salt = draw(source, 100_000_000, 200_000_000)
    assert value == 150_000_000 and salt == "00" * 16


def test_range_ends_are_reachable_and_the_maximum_is_not():
    low = draw(ScriptedBytes([b"\x00\x00", bytes(16)]), 100_000_000, 200_000_000)[0]
    high = draw(ScriptedBytes([b"\x27\x0f", bytes(16)]), 100_000_000, 200_000_000)[0]
    assert (low, high) == (100_000_000, 199_990_000)  # $100.00 and $199.99
    source = ScriptedBytes([b"\x27\x10", b"\x00\x01", bytes(16)])  # 10,000 is out
    assert draw(source, 100_000_000, 200_000_000)[0] == 100_010_000


def test_commitment_is_sha256_of_cents_and_salt():
    expected = binascii.hexlify(hashlib.sha256(b"12345:abcd").digest()).decode()
    assert commitment(123_450_000, "abcd") == expected
