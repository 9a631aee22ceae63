# The record key: a 32-byte HMAC-SHA256 key given to the board at its table
# (the `provision` command, in service mode) that no reply, log, export or
# fault ever carries. Every log record the board makes after it has one
# carries "auth": "<key id>:<HMAC of the record's hash>", and a host's `head`
# is answered with the log head authenticated over the host's nonce. The
# board and the host compute both here, so their texts cannot drift
# (docs/host-link.md, "Record keys").
import binascii
import hashlib

from micropython import const

KEY_BYTES = const(32)
ID_CHARS = const(16)
_BLOCK = const(64)  # SHA-256's block, in bytes

# HMAC-SHA256 (RFC 2104) from hashlib, its key's two padded forms made once
# a key and kept: micropython-lib's hmac makes them again at every call, and
# that was most of its time, 7.3 ms a record on the emulated Pico against
# 2.8 ms for the record's whole link (docs/benchmarks.md, "The record key's
# cost"). Checked against RFC 4231's vectors and against CPython's and
# micropython-lib's hmac (tests/logic/test_recordkey_mac.py).
_pads = [None, b"", b""]  # [the key, its inner pad, its outer pad]


def _hex(data):
    return binascii.hexlify(data).decode()


def parse_key(text):
    # The key's bytes from its 64 lower-case hex digits; ValueError otherwise.
    if not isinstance(text, str) or len(text) != 2 * KEY_BYTES \
            or text.strip("0123456789abcdef"):
        raise ValueError("a record key is %d lower-case hex digits" % (2 * KEY_BYTES))
    return binascii.unhexlify(text)


def key_id(key):
    # The key's fingerprint: names it in records and in `status`, and tells
    # nothing of the key (a SHA-256 with a prefix of its own, cut to 64 bits).
    return _hex(hashlib.sha256(b"uth record key id:" + key).digest())[:ID_CHARS]


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
    return _hex(wrapped.digest())


def _mac(key, text):
    return mac(key, text.encode())


def record_auth(key, kid, record_hash):
    # A record's authenticator: over its hash, which covers the record's
    # canonical text and the record before it (chain.py). Inside LOCK's
    # commit: its text made in one piece, each new string costing on a Pico
    # (docs/benchmarks.md, "LOCK with the record key").
    return "%s:%s" % (kid, mac(key, b"record:", record_hash.encode()))


def head_auth(key, seq, head_hash, nonce, dropped):
    # The answer to `head`: the log's head as the board holds it and how many
    # records its bounded log dropped (so where the log it keeps starts: the
    # board's word, not its host's), bound to the asker's nonce so an old
    # answer cannot be shown again.
    return _mac(key, "head:%d:%s:%s:%d" % (seq, head_hash, nonce, dropped))


def collected_auth(key, kid, seq, record_hash):
    # The floor's word that it stored the board's log up to record `seq`,
    # whose hash is record_hash: only a holder of the record key can make
    # it, so the table's host cannot confirm what the floor did not store
    # (docs/host-link.md, "Collected"). Its own prefix: never a record's or
    # a head's authenticator.
    return _mac(key, "collected:%s:%d:%s" % (kid, seq, record_hash))


def split_auth(auth):
    # (key id, mac) of a record's "auth"; ValueError when it is not that shape.
    if not isinstance(auth, str) or len(auth) != ID_CHARS + 65 or auth[ID_CHARS] != ":":
        raise ValueError("an authenticator is the key id, ':' and 64 hex digits")
    return auth[:ID_CHARS], auth[ID_CHARS + 1:]
