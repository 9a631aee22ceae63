# HMAC_DRBG over SHA-256 (NIST SP 800-90A Rev. 1, section 10.1.2): the one
# generator of every secret the board draws (the hit value and its salt).
# Its state, (Key, V, reseed counter), is a secret kept in the meter record
# (store.py) and nowhere else. Checked against NIST CAVP's vectors
# (tests/logic/test_drbg_vectors.py) and at every start against one of them
# (health_check below, drbg_check.py). Why and how: docs/mystery.md, "The generator".
import binascii
import hashlib

from micropython import const

OUT_BYTES = const(32)  # SHA-256's output: the sizes of Key and V
SECURITY_BYTES = const(32)  # 256 bits: the least entropy an instantiation takes
MAX_REQUEST = const(65536)  # bytes a generate may give: 2**19 bits (Table 2)
# SP 800-90A allows 2**48 generates between reseeds; the board reseeds at every
# draw, so far fewer ever pass. A state past this is refused, not used.
RESEED_INTERVAL = 1 << 48
_BLOCK = const(64)  # SHA-256's block, in bytes
_IPAD = int.from_bytes(b"\x36" * _BLOCK, "big")
_OPAD = int.from_bytes(b"\x5c" * _BLOCK, "big")


class ReseedRequired(Exception):
    pass


def hmac_sha256(key, message):
    # RFC 2104 for a key of at most one block (Key is always 32 bytes here);
    # the pads made by one integer XOR, fast on MicroPython's long ints.
    padded = int.from_bytes(key + bytes(_BLOCK - len(key)), "big")
    inner = hashlib.sha256((padded ^ _IPAD).to_bytes(_BLOCK, "big"))
    inner.update(message)
    outer = hashlib.sha256((padded ^ _OPAD).to_bytes(_BLOCK, "big"))
    outer.update(inner.digest())
    return outer.digest()


class HmacDrbg:
    def __init__(self, key, value, counter):
        self.key = key
        self.value = value
        self.counter = counter

    def _update(self, provided):
        # HMAC_DRBG_Update (10.1.2.2).
        self.key = hmac_sha256(self.key, self.value + b"\x00" + provided)
        self.value = hmac_sha256(self.key, self.value)
        if provided:
            self.key = hmac_sha256(self.key, self.value + b"\x01" + provided)
            self.value = hmac_sha256(self.key, self.value)

    def reseed(self, entropy, additional=b""):
        # 10.1.2.4. The caller vouches for the entropy's worth (docs/mystery.md).
        self._update(entropy + additional)
        self.counter = 1

    def generate(self, count, additional=b""):
        # 10.1.2.5: count bytes; the state moves on whatever the caller keeps.
        if count > MAX_REQUEST:
            raise ValueError("at most %d bytes a request" % MAX_REQUEST)
        if self.counter > RESEED_INTERVAL:
            raise ReseedRequired("the generator must be reseeded")
        if additional:
            self._update(additional)
        out = bytearray()
        while len(out) < count:
            self.value = hmac_sha256(self.key, self.value)
            out += self.value
        self._update(additional)
        self.counter += 1
        return bytes(out[:count])

    def copy(self):
        return HmacDrbg(self.key, self.value, self.counter)

    def to_record(self):
        # For the meter record only (store.py): never a reply, event or log.
        return [_hex(self.key), _hex(self.value), self.counter]


def instantiate(entropy, nonce, personalization=b""):
    # 10.1.2.3; the caller gives at least SECURITY_BYTES of entropy.
    drbg = HmacDrbg(b"\x00" * OUT_BYTES, b"\x01" * OUT_BYTES, 1)
    drbg._update(entropy + nonce + personalization)
    return drbg


def from_record(record):
    # The state as the meter record keeps it; ValueError if it is not one.
    if type(record) is not list or len(record) != 3 or type(record[2]) is not int \
            or record[2] < 1:
        raise ValueError("the generator's state is damaged")
    try:
        key, value = binascii.unhexlify(record[0]), binascii.unhexlify(record[1])
    except (TypeError, ValueError):
        raise ValueError("the generator's state is damaged") from None
    if len(key) != OUT_BYTES or len(value) != OUT_BYTES:
        raise ValueError("the generator's state is damaged")
    return HmacDrbg(key, value, record[2])


def _hex(data):
    return binascii.hexlify(data).decode()


def health_check():
    # True if the generator gives the known answer (controller: a fault if
    # not); the answer and its check are drbg_check.py's, loaded for the
    # start's check and let go.
    from uth.let_go import let_go

    from . import drbg_check

    try:
        return drbg_check.known_answer(instantiate)
    finally:
        let_go(drbg_check.__name__)
