# The record key: a 32-byte HMAC-SHA256 key given to the board at its table
# (the `provision` command, in service mode) that no reply, log, export or
# fault ever carries. Every log record the board makes after it has one
# carries "auth": "<key id>:<HMAC of the record's hash>", and a host's `head`
# is answered with the log head authenticated over the host's nonce. The
# board and the host compute both here, so their texts cannot drift
# (docs/host-link.md, "Record keys"). A record's authenticator is made in
# record_mac.py, which a keyed board keeps loaded; this rest it loads for a
# provision, a boot's key, a `head` or a `collected`, and lets go.
import binascii
import hashlib

from micropython import const

from .record_mac import mac, record_auth  # noqa: F401 (the host's one name for both)

KEY_BYTES = const(32)
ID_CHARS = const(16)


def parse_key(text):
    # The key's bytes from its 64 lower-case hex digits; ValueError otherwise.
    if not isinstance(text, str) or len(text) != 2 * KEY_BYTES \
            or text.strip("0123456789abcdef"):
        raise ValueError("a record key is %d lower-case hex digits" % (2 * KEY_BYTES))
    return binascii.unhexlify(text)


def key_id(key):
    # The key's fingerprint: names it in records and in `status`, and tells
    # nothing of the key (a SHA-256 with a prefix of its own, cut to 64 bits).
    digest = hashlib.sha256(b"uth record key id:" + key).digest()
    return binascii.hexlify(digest).decode()[:ID_CHARS]


def _mac(key, text):
    return mac(key, text.encode())


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
