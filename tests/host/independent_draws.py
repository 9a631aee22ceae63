# The virtual board's hit values, salts and commitments, computed here
# without the firmware (firmware/mystery/hitvalue.py) or the supervisor
# (host_tools/uthctl/boards/virtual.py), so the vboard tests predict the board from
# an independent computation:
#
#   stream      the sim board's TEST-ONLY random source (boards/sim/board.py,
#               UTH_SIM_SEED): the bytes of SHA-256("SEED:0"), then of
#               SHA-256("SEED:1"), ... as one stream, every request taking
#               the next n bytes of it (a request never skips what an earlier
#               one left unread in a digest)
#   hit value   rules.md: "drawn uniformly from the cent values in [minimum,
#               maximum - 1 cent] ... rejection sampling, never a modulo";
#               to name the same value as the board, it spends the stream as
#               the board does: a candidate is the fewest whole bytes holding
#               the bits needed to number every value, read big-endian with
#               the bits above that width cleared, and tried again while it
#               is past the last value; then 16 bytes of salt, shown as
#               lowercase hex
#   commitment  SHA-256 of "CENTS:SALT" as lowercase hex
#
# tests/host/test_independent_draws.py checks this against the firmware's
# draw for many seeds; the vboard tests then rely on this module alone.
import hashlib

SALT_SIZE = 16  # bytes


class SeedStream:
    # The seeded byte stream; calling it with n returns the next n bytes.
    def __init__(self, seed):
        self.seed = seed
        self.blocks = 0  # digests made so far
        self.buffer = bytearray()
        self.position = 0  # bytes handed out so far

    def _block(self, index):
        return hashlib.sha256(("%d:%d" % (self.seed, index)).encode()).digest()

    def __call__(self, n):
        end = self.position + n
        while len(self.buffer) < end:
            self.buffer += self._block(self.blocks)
            self.blocks += 1
        chunk = bytes(self.buffer[self.position:end])
        self.position = end
        return chunk


def uniform_index(take, count):
    # A whole number in range(count), every one equally likely, by rejection.
    if count < 1:
        raise ValueError("nothing to draw from")
    width = 1  # bits; even a single value is read from one bit
    while 2 ** width < count:
        width += 1
    size = -(-width // 8)  # bytes, rounded up
    while True:
        number = 0
        for byte in take(size):
            number = number * 256 + byte
        number %= 2 ** width  # keeps the low `width` bits: a mask, not a modulo of count
        if number < count:
            return number


def draw(take, minimum_cents, maximum_cents):
    # (hit value in cents, salt as lowercase hex) from the byte source `take`.
    cents = minimum_cents + uniform_index(take, maximum_cents - minimum_cents)
    salt = "".join("%02x" % byte for byte in take(SALT_SIZE))
    return cents, salt


def seeded_draws(seed, minimum_cents, maximum_cents, count):
    # The first `count` (cents, salt) a freshly booted seeded board draws.
    take = SeedStream(seed)
    return [draw(take, minimum_cents, maximum_cents) for _ in range(count)]


def commitment(cents, salt):
    return hashlib.sha256(("%d:%s" % (cents, salt)).encode()).hexdigest()
