# The secret hit value of a cycle: uniform over the cent values in
# [minimum, maximum - 1 cent] (a minimum between cents rounded up), drawn
# from the device's random source by rejection sampling (a modulo would
# favour the low values). A commitment, SHA-256 of the value and a random
# salt, is published at the cycle's start and both are revealed at the hit,
# so an auditor can check the value was fixed before play.
import binascii
import hashlib

from .configs import MICROS_PER_CENT

SALT_BYTES = 16


def draw_cents(random_bytes, low_cents, count):
    # One of `count` cent values from low_cents, each equally likely.
    bits = 1
    while (1 << bits) < count:
        bits += 1
    mask = (1 << bits) - 1
    size = (bits + 7) // 8
    while True:
        candidate = int.from_bytes(random_bytes(size), "big") & mask
        if candidate < count:
            return low_cents + candidate


def draw(random_bytes, minimum, maximum):
    # (hit value in micro-dollars, salt as hex): the value is a whole cent.
    low = (minimum + MICROS_PER_CENT - 1) // MICROS_PER_CENT
    count = maximum // MICROS_PER_CENT - low  # [minimum, maximum - 1 cent]
    cents = draw_cents(random_bytes, low, count)
    salt = binascii.hexlify(random_bytes(SALT_BYTES)).decode()
    return cents * MICROS_PER_CENT, salt


def commitment(hit_value, salt):
    text = "%d:%s" % (hit_value // MICROS_PER_CENT, salt)
    return binascii.hexlify(hashlib.sha256(text.encode()).digest()).decode()
