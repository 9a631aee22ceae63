# Random sources for tests: bytes given in advance, so a hit value is chosen
# by the test (and every byte the engine asks for is accounted for).


class ScriptedBytes:
    def __init__(self, chunks):
        self.chunks = list(chunks)

    def __call__(self, n):
        chunk = self.chunks.pop(0)
        assert len(chunk) == n, "engine asked for %d bytes, script has %d" % (n, len(chunk))
        return chunk


SALT = bytes(range(16))
SALT_HEX = "000102030405060708090a0b0c0d0e0f"


def hit_value_bytes(candidate, size):
    # The bytes that make draw_cents pick `candidate` (the offset from the minimum).
    return candidate.to_bytes(size, "big")


def source_for(*candidates, size=2):
    # One draw per reset: the candidate's bytes then the salt.
    chunks = []
    for candidate in candidates:
        chunks.append(hit_value_bytes(candidate, size))
        chunks.append(SALT)
    return ScriptedBytes(chunks)
