# The record key's HMAC-SHA256 (mystery/recordkey.py), which keeps each key's
# padded forms rather than making them at every call: RFC 4231's vectors, and
# the same MAC as the hmac module of the runtime running the test (CPython's
# own; on the unix port micropython-lib's, which tests/mp_each.py puts on the
# path), for keys taken in turn so that the kept pads change between calls.
import binascii
import hashlib
import hmac

from mystery import recordkey

# RFC 4231, test cases 1, 2 and 6 (a key longer than SHA-256's block).
VECTORS = (
    (b"\x0b" * 20, b"Hi There",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First",
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
)


def test_the_mac_gives_rfc_4231s_vectors():
    for key, message, expected in VECTORS:
        assert recordkey.mac(key, message) == expected, key


def test_the_mac_is_the_hmac_modules_for_keys_taken_in_turn():
    keys = [hashlib.sha256(b"key %d" % n).digest() for n in range(3)]
    for round_ in range(2):
        for n, key in enumerate(keys + keys[::-1]):
            message = b"record:" + binascii.hexlify(hashlib.sha256(b"%d %d" % (round_, n))
                                                    .digest())
            expected = binascii.hexlify(hmac.new(key, message, hashlib.sha256).digest())
            assert recordkey.mac(key, message) == expected.decode(), (round_, n)
