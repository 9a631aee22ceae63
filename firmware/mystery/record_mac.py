# The record key's HMAC and a record's authenticator: what every signed
# commit runs. Apart from recordkey.py's rest (the key parsed, its id, the
# answers to `head` and `collected`), which a board loads only for those and
# lets go, so a keyed board's heap holds this alone (docs/heap.md).
import binascii
import hashlib

from micropython import const

_BLOCK = const(64)  # SHA-256's block, in bytes

# HMAC-SHA256 (RFC 2104) from hashlib, its key's two padded forms made once
# a key and kept: micropython-lib's hmac makes them again at every call, and
# that was most of its time, 7.3 ms a record on the emulated Pico against
# 2.8 ms for the record's whole link (docs/benchmarks.md, "The record key's
# cost"). Checked against RFC 4231's vectors and against CPython's and
# micropython-lib's hmac (tests/logic/test_recordkey_mac.py).
_pads = [None, b"", b""]  # [the key, its inner pad, its outer pad]


def _padded(key):
    if _pads[0] != key:
        block = key if len(key) <= _BLOCK else hashlib.sha256(key).digest()
        block += bytes(_BLOCK - len(block))
        _pads[0] = key
        _pads[1] = bytes(byte ^ 0x36 for byte in block)
        _pads[2] = bytes(byte ^ 0x5C for byte in block)
    return _pads[1], _pads[2]


def mac(key, message, more=b""):
    # HMAC-SHA256(key, message + more), 64 hex digits; message, more: bytes,
    # fed apart rather than joined into a new string first.
    inner, outer = _padded(key)
    digest = hashlib.sha256(inner)
    digest.update(message)
    digest.update(more)
    wrapped = hashlib.sha256(outer)
    wrapped.update(digest.digest())
    return binascii.hexlify(wrapped.digest()).decode()


def record_auth(key, kid, record_hash):
    # A record's authenticator: over its hash, which covers the record's
    # canonical text and the record before it (chain.py). Inside LOCK's
    # commit: its text made in one piece, each new string costing on a Pico
    # (docs/benchmarks.md, "LOCK with the record key").
    return "%s:%s" % (kid, mac(key, b"record:", record_hash.encode()))
