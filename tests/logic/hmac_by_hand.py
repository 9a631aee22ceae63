# HMAC-SHA256 as RFC 2104 defines it, from hashlib alone: the tests' own
# computation of what a record key's authenticators must be, apart from the
# hmac module the firmware signs with (docs/host-link.md, "Record keys").
import binascii
import hashlib

_BLOCK = 64  # SHA-256's block, in bytes


def _sha256(*parts):
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.digest()


def hmac_sha256(key, message):
    padded = key + bytes(_BLOCK - len(key))  # a 32-byte key needs no hashing first
    inner = bytes(byte ^ 0x36 for byte in padded)
    outer = bytes(byte ^ 0x5C for byte in padded)
    return binascii.hexlify(_sha256(outer, _sha256(inner, message))).decode()


def key_id(key):
    # docs/host-link.md: the SHA-256 of "uth record key id:" and the key, 16 hex digits.
    return binascii.hexlify(_sha256(b"uth record key id:", key)).decode()[:16]


def record_auth(key, record):
    return key_id(key) + ":" + hmac_sha256(key, b"record:" + record["hash"].encode())


def head_auth(key, seq, head_hash, nonce, dropped):
    return hmac_sha256(key, ("head:%d:%s:%s:%d" % (seq, head_hash, nonce, dropped)).encode())


def collected_auth(key, seq, record_hash):
    # The floor's confirmation that it stored the log up to record `seq`
    # (docs/host-link.md, "Collected").
    return hmac_sha256(key, ("collected:%s:%d:%s" % (key_id(key), seq, record_hash)).encode())


def clock_auth(key, seq, record_hash, when):
    # The floor's clock set for a board whose clock is unset, bound to its
    # start record `seq` (docs/host-link.md, "The clock"): the time as six
    # decimal numbers joined by commas.
    text = "clock:%s:%d:%s:%s" % (key_id(key), seq, record_hash, ",".join(str(n) for n in when))
    return hmac_sha256(key, text.encode())
