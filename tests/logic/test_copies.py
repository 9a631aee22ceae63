# A record kept as two copies (mystery/copies.py), tested on its own: the
# text of a copy, the copy that counts, an unreadable one reported and never
# taken, a replacement that leaves no temporary file, a put that makes a
# copy's first file through the temporary file and writes it in place after. The expected texts are
# written here from the format docs/mystery.md gives, with the CRC taken by
# binascii directly.
import binascii
import json
import os

import tmpdir
from mystery.copies import COPY_INDEX, COPY_PAYLOAD, COPY_SEQ, TMP_NAME, Pair, decode, exists

MAGICS = ("UTHTEST2", "UTHTEST1")


def _pair(root):
    return Pair(root, ("rec.a", "rec.b"), MAGICS, "test record")


def _text(magic, seq, payload):
    body = json.dumps(payload, separators=(",", ":"))
    return "%s %d %08x\n%s\n" % (magic, seq, binascii.crc32(body.encode()) & 0xFFFFFFFF, body)


def _read(path):
    with open(path) as f:
        return f.read()


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


@tmpdir.within
def test_a_copy_is_its_magic_seq_crc_and_compact_body(root):
    pair = _pair(root)
    pair.replace(1, 7, {"a": [1, 2]}, root + "/" + TMP_NAME)
    assert _read(root + "/rec.b") == _text("UTHTEST2", 7, {"a": [1, 2]})
    assert not exists(root + "/" + TMP_NAME)  # renamed over the copy, none left
    assert not exists(root + "/rec.a")
    assert pair.read(1) == [1, 7, {"a": [1, 2]}] and pair.read(0) is None


@tmpdir.within
def test_the_higher_sequence_counts_and_an_earlier_magic_is_read(root):
    pair = _pair(root)
    _write(root + "/rec.a", _text("UTHTEST1", 4, {"v": "old"}))  # an earlier form
    pair.write(1, 5, {"v": "new"})
    warnings = []
    newest = pair.newest(warnings)
    assert newest[COPY_INDEX] == 1 and newest[COPY_SEQ] == 5
    assert newest[COPY_PAYLOAD] == {"v": "new"} and warnings == []
    assert [copy[COPY_SEQ] for copy in pair.found(warnings)] == [4, 5]


@tmpdir.within
def test_an_unreadable_copy_is_reported_and_the_other_counts(root):
    pair = _pair(root)
    pair.write(0, 8, {"v": 8})
    good = _text("UTHTEST2", 9, {"v": 9})
    for bad in (good.replace('"v":9', '"v":6'),  # its CRC no longer matches
                good.replace("UTHTEST2", "UTHOTHER"),  # a magic it does not read
                good[:len(good) // 2],  # cut short by a power cut
                "UTHTEST2 9\n{}\n"):  # no CRC at all
        _write(root + "/rec.b", bad)
        warnings = []
        assert pair.newest(warnings) == [0, 8, {"v": 8}], bad
        assert warnings == ["test record copy rec.b is unreadable"], warnings
    assert pair.any_exists()


@tmpdir.within
def test_no_copy_is_none_and_nothing_reported(root):
    pair = _pair(root)
    warnings = []
    assert pair.newest(warnings) is None and warnings == [] and not pair.any_exists()


@tmpdir.within
def test_put_makes_a_copy_first_through_its_temporary_file(root):
    # littlefs commits a new file's entry before its content, so a copy's
    # first file is renamed from a whole one: with the temporary file's
    # path not writable (a folder there), the put fails and leaves no copy.
    pair = _pair(root)
    tmp = root + "/" + TMP_NAME
    os.mkdir(tmp)
    try:
        pair.put(0, 1, {"v": 1}, tmp)
    except OSError:
        pass
    else:
        raise AssertionError("a first copy was made without its temporary file")
    assert not exists(root + "/rec.a")
    os.rmdir(tmp)
    pair.put(0, 1, {"v": 1}, tmp)
    assert _read(root + "/rec.a") == _text("UTHTEST2", 1, {"v": 1}) and not exists(tmp)


@tmpdir.within
def test_put_writes_a_copy_that_is_there_in_place(root):
    # Over a file that is there, the put needs no temporary file: the folder
    # at its path does not stop it, here or for a pair that finds the copy
    # on flash from an earlier run.
    tmp = root + "/" + TMP_NAME
    _pair(root).put(1, 2, {"v": 2}, tmp)
    os.mkdir(tmp)
    pair = _pair(root)
    pair.put(1, 4, {"v": 4}, tmp)
    assert _read(root + "/rec.b") == _text("UTHTEST2", 4, {"v": 4})
    pair.put(1, 6, {"v": 6}, tmp)
    assert pair.newest([]) == [1, 6, {"v": 6}] and not exists(root + "/rec.a")


def test_decode_refuses_what_is_not_a_copy():
    for text in ("", "UTHTEST2 1 00000000", "UTHTEST2 x 00000000\n{}\n", "no header\n{}\n",
                 "UTHTEST2 1 zz\n{}\n"):
        assert decode(MAGICS, text) is None, text
    assert decode(MAGICS, _text("UTHTEST1", 3, [1])) == (3, [1])


def test_exists_says_whether_a_path_is_there():
    assert exists("/") and not exists("/no-such-path-" + binascii.hexlify(os.urandom(4)).decode())
