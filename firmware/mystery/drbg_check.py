# The generator's health check at every start (drbg.health_check): one
# known answer, kept in a module of its own so its vectors are in the heap
# only while it runs.
import binascii
import hashlib

from micropython import const

_SECURITY_BYTES = const(32)  # drbg.SECURITY_BYTES: the entropy's share of the vector


def _hex(data):
    return binascii.hexlify(data).decode()


# The health check's known answer: NIST CAVP (CAVS 14.3) HMAC_DRBG SHA-256,
# prediction resistance false, no personalization or additional input,
# count 0, as Mbed TLS's test_suite_hmac_drbg.nopr.data carries it (also in
# tests/logic/hmac_drbg_sha256.data): instantiate with 32 bytes of entropy
# and a 16-byte nonce, reseed with 32 more, generate 128 bytes twice; the
# second output's SHA-256 is kept here rather than its 128 bytes.
_KAT_ENTROPY = ("06032cd5eed33f39265f49ecb142c511da9aff2af71203bffaf34a9ca5bd9c0d"
                "0e66f71edc43e42a45ad3c6fc6cdc4df")
_KAT_RESEED = "01920a4e669ed3a85ae8a33b35a74ad7fb2a6bb4cf395ce00334a9c9a5a5d552"
_KAT_DIGEST = "2fda5ae8414d1a903b0e4e3578c04e40abb9547c007ac8345c04498b6a102885"


def known_answer(instantiate):
    # True if instantiate's generator gives the known answer.
    entropy = binascii.unhexlify(_KAT_ENTROPY)
    drbg = instantiate(entropy[:_SECURITY_BYTES], entropy[_SECURITY_BYTES:])
    drbg.reseed(binascii.unhexlify(_KAT_RESEED))
    drbg.generate(128)
    return _hex(hashlib.sha256(drbg.generate(128)).digest()) == _KAT_DIGEST
