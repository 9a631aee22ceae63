# The record key on the board's flash (recordkey.py says what it is for): one
# file, "keys", holding the key in force and, while a provision runs, the
# key replacing it. It is written whole to the store's temporary file and
# renamed over the old one, because littlefs makes a rename atomic but not a
# file's first writing. Which of its keys is in force is the meter record's
# to say (store.py), so a power cut before the `key` record commits leaves
# the old key in force. Nothing here is ever sent: replies, events and log
# records name a key by its id alone.
import binascii
import os

from uth.let_go import let_go

from .copies import decode, encode, exists

NAME = "keys"  # in the store's folder
_MAGIC = "UTHKEYS1"


def path(root):
    return root + "/" + NAME


def read(path):
    # {key id: key bytes}; {} with no file; ValueError when it is unreadable.
    if not exists(path):
        return {}
    with open(path) as f:
        found = decode((_MAGIC,), f.read())
    if found is None:
        raise ValueError("the record keys file is unreadable")
    from .recordkey import key_id  # for the boot's check only: let go after it

    keys = {}
    try:
        for kid, text in found[1]:
            key = binascii.unhexlify(text)
            if key_id(key) != kid:
                raise ValueError("the record keys file holds a key that is not its id's")
            keys[kid] = key
    finally:
        let_go("mystery.recordkey")
    return keys


def write(path, tmp, keys):
    # keys: [(key id, key bytes)], the whole file at once.
    with open(tmp, "w") as f:
        encode(f, _MAGIC, len(keys), [[kid, binascii.hexlify(key).decode()]
                                      for kid, key in keys])
    os.rename(tmp, path)
