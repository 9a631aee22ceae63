# A record kept as two copies, a and b, each a file of its own whose text is
# "MAGIC seq crc\nbody\n": the body compact JSON, crc its CRC32. A write goes
# over the copy that does not count, so the one that does survives a write
# cut short; the higher sequence number counts. The file formats are
# docs/mystery.md's ("Store").
import binascii
import json
import os

from micropython import const

# A copy read from flash: [which of the two, its sequence number, its payload].
COPY_INDEX = const(0)
COPY_SEQ = const(1)
COPY_PAYLOAD = const(2)

# The temporary file a copy is written to and renamed from: named to be the
# last entry of its folder, the one place a rename cut short cannot drop an
# entry after it (docs/mystery.md, "Store").
TMP_NAME = "~meter.tmp"
_COMPACT = (",", ":")


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def encode(f, magic, seq, payload):
    # Written in pieces, the header, the body and its line end, so the body
    # is never copied into a second string as long as itself.
    body = json.dumps(payload, separators=_COMPACT)
    crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
    f.write("%s %d %08x\n" % (magic, seq, crc))
    f.write(body)
    f.write("\n")


def decode(magics, text):
    # (seq, payload), or None when the copy is unreadable.
    try:
        header, body = text.split("\n", 1)
        magic, seq, crc = header.split(" ")
        body = body.rstrip("\n")
        if magic not in magics or (
                int(crc, 16) != binascii.crc32(body.encode()) & 0xFFFFFFFF):
            return None
        return int(seq), json.loads(body)
    except (ValueError, TypeError):
        return None


class Pair:
    # magics: the first is written, every one is read (oldstores.py names
    # the earlier ones). what: the record's name in a warning.
    def __init__(self, root, names, magics, what):
        # The paths made once: a path joined anew would be a new string at
        # every commit.
        self.paths = (root + "/" + names[0], root + "/" + names[1])
        self.magics = magics
        self.what = what
        # Whether each copy's file is there, once known (put): only the
        # store writes its folder while it runs.
        self._there = [False, False]

    def read(self, index):
        # [index, seq, payload], or None when the copy is missing or unreadable.
        try:
            with open(self.paths[index]) as f:
                found = decode(self.magics, f.read())
        except (OSError, ValueError):  # ValueError: UnicodeError, bytes that are not text
            return None
        return None if found is None else [index, found[0], found[1]]

    def found(self, warnings):
        # The readable copies; one that is there but cannot be read is
        # reported in warnings.
        copies = []
        for index in range(2):
            copy = self.read(index)
            if copy is not None:
                copies.append(copy)
            elif exists(self.paths[index]):
                warnings.append("%s copy %s is unreadable"
                                % (self.what, self.paths[index].rsplit("/", 1)[1]))
        return copies

    def newest(self, warnings):
        # The copy that counts, [index, seq, payload], or None.
        copies = self.found(warnings)
        if not copies:
            return None
        return max(copies, key=lambda copy: copy[COPY_SEQ])

    def any_exists(self):
        return exists(self.paths[0]) or exists(self.paths[1])

    def replace(self, index, seq, payload, tmp):
        # The whole copy at once: written to tmp, renamed over the old one.
        with open(tmp, "w") as f:
            encode(f, self.magics[0], seq, payload)
        os.rename(tmp, self.paths[index])

    def put(self, index, seq, payload, tmp):
        # Over the copy in place once its file is there, through tmp and a
        # rename the first time. littlefs keeps a file's old content until
        # its new one is whole, and an overwrite is one metadata commit
        # where a new file and its rename are three: the folder's metadata
        # fills, and littlefs compacts it, about a third as often (LOCK's time:
        # docs/benchmarks.md, "LOCK with the record key"). A new file's
        # entry is committed before its content, so a first copy is never
        # made in place: a cut there would leave an empty copy.
        there = self._there
        if not there[index]:
            there[index] = exists(self.paths[index])
        if there[index]:
            self.write(index, seq, payload)
        else:
            self.replace(index, seq, payload, tmp)
            there[index] = True

    def write(self, index, seq, payload):
        # In place: for a record whose other copy still counts until this
        # one is whole (littlefs keeps a file's old content until then).
        with open(self.paths[index], "w") as f:
            encode(f, self.magics[0], seq, payload)
