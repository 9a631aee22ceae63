# The log's canonical text, on which every record's hash rests: it must not
# change, or no log already on a board would verify, and both runtimes must
# give the same bytes. Checked against a text written out by hand, against
# the field-by-field definition (written again here) on records of every
# shape JSON allows, and on CPython against the json module's own sorted form.
import binascii
import hashlib
import json
import sys

from lcg import Lcg
from mystery import chain

PREV = "ab" * 32
ROUND = {"ev": "round", "round": 12, "contributions": [[1, 100, 20000], [3, 500, 100000]],
         "meter": 100120000, "seq": 40, "prev": PREV, "hash": "ignored"}
# The same round by hand: keys in sorted order, no spaces, no "hash".
ROUND_TEXT = ('{"contributions":[[1,100,20000],[3,500,100000]],"ev":"round","meter":100120000,'
              '"prev":"' + PREV + '","round":12,"seq":40}')


def _reference(record):
    # canonical() as first defined: field by field, keys sorted, "hash" left
    # out at every depth.
    fields = [json.dumps(key) + ":" + _reference_value(record[key])
              for key in sorted(record) if key != "hash"]
    return "{" + ",".join(fields) + "}"


def _reference_value(value):
    if isinstance(value, list):
        return "[" + ",".join(_reference_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return _reference(value)
    return json.dumps(value)


_WORDS = ("ev", "seq", "hash", "a\"b", "back\\slash", "line\nbreak", "", "round", "zz", "A",
          "f(x)", "{}")


def _scalar(lcg):
    kind = lcg.below(7)
    if kind == 0:
        return lcg.below(1 << 20) - (1 << 19)
    if kind == 1:
        return (lcg.below(1 << 30) << 30) + lcg.below(1 << 30)  # past a small int
    if kind == 2:
        return _WORDS[lcg.below(len(_WORDS))]
    if kind == 3:
        return None
    if kind == 4:
        return lcg.below(2) == 1
    if kind == 5:
        return lcg.below(1000) / 8  # exact in binary: the same text on both runtimes
    return "%064x" % lcg.below(1 << 30)


def _value(lcg, depth):
    kind = lcg.below(8) if depth < 3 else 0
    if kind == 5:
        return [_value(lcg, depth + 1) for _ in range(lcg.below(4))]
    if kind == 6:
        return _record(lcg, depth + 1)
    if kind == 7:
        return tuple(_scalar(lcg) for _ in range(lcg.below(3)))
    return _scalar(lcg)


def _record(lcg, depth=0):
    record = {_WORDS[lcg.below(len(_WORDS))] + str(lcg.below(3)): _value(lcg, depth)
              for _ in range(lcg.below(7))}
    if lcg.below(2):
        record["hash"] = "%064x" % lcg.below(1 << 30)
    return record


def _json_alike(value):
    # No dict (its "hash" would be kept) and no tuple (written with spaces
    # field by field) anywhere in it.
    if isinstance(value, list):
        return all(_json_alike(item) for item in value)
    return not isinstance(value, (dict, tuple))


def test_a_round_record_reads_as_written_out_by_hand():
    assert chain.canonical(ROUND) == ROUND_TEXT
    expected = binascii.hexlify(hashlib.sha256((PREV + ROUND_TEXT).encode()).digest()).decode()
    assert chain.record_hash(ROUND) == expected


def test_records_of_every_shape_read_as_the_field_by_field_definition():
    lcg = Lcg(653)
    shapes = set()
    for _ in range(400):
        record = _record(lcg)
        assert chain.canonical(record) == _reference(record), record
        shapes.update(type(value).__name__ for value in record.values())
    assert {"list", "dict", "tuple", "int", "str"} <= shapes  # every way was taken


def test_on_cpython_the_text_is_json_with_sorted_keys():
    if sys.implementation.name != "cpython":
        return
    lcg = Lcg(58)
    kept = 0
    for _ in range(200):
        record = {key: value for key, value in _record(lcg).items()
                  if key != "hash" and _json_alike(value)}
        text = json.dumps(record, sort_keys=True, separators=(",", ":"))
        assert chain.canonical(record) == text
        kept += len(record)
    assert kept > 200  # most fields were compared, not filtered out


# Every class of character a string may hold, and the canonical text of it
# as docs/host-link.md ("The hash's text") defines it, written out by hand:
# the same bytes on both runtimes, whose json.dumps write several of these
# differently (MicroPython: é and DEL raw, \b as \u0008; CPython: \b, \f).
CHARACTER_CLASSES = (
    ("plain", "r-1 ~/", '"r-1 ~/"'),
    ("quote and backslash", 'a"b\\c', '"a\\"b\\\\c"'),
    ("newline, return, tab", "a\nb\rc\td", '"a\\nb\\rc\\td"'),
    ("backspace", "a\bb", '"a\\u0008b"'),
    ("form feed", "a\fb", '"a\\u000cb"'),
    ("NUL and unit separator", "\x00\x1f", '"\\u0000\\u001f"'),
    ("DEL", "a\x7fb", '"a\\u007fb"'),
    ("Latin-1", "caf\u00e9 \u00ff\u0080", '"caf\\u00e9 \\u00ff\\u0080"'),
    ("BMP", "\u20ac\uffff", '"\\u20ac\\uffff"'),
    ("past U+FFFF", "\U0001F600", '"\\ud83d\\ude00"'),
)


def _labelled(label):
    return {"ev": "settled", "label": label, "seq": 5, "prev": PREV, "hash": "ignored"}


def _labelled_text(written):
    return '{"ev":"settled","label":' + written + ',"prev":"' + PREV + '","seq":5}'


def test_every_class_of_character_is_written_by_the_canonical_rule():
    for name, label, written in CHARACTER_CLASSES:
        text = chain.canonical(_labelled(label))
        assert text == _labelled_text(written), (name, text)
        expected = binascii.hexlify(hashlib.sha256((PREV + text).encode()).digest()).decode()
        assert chain.record_hash(_labelled(label)) == expected, name


def test_the_rule_holds_in_keys_lists_and_nested_objects():
    for name, label, written in CHARACTER_CLASSES:
        record = {"seats": [[1, label]], "rules": {label: 0, "hash": 1}, label: True}
        text = chain.canonical(record)
        assert text.startswith("{"), name
        expected = sorted([('"rules"', '{' + written + ':0}'), ('"seats"', '[[1,' + written
                                                                 + ']]'),
                           (written, "true")], key=lambda pair: _decoded_key(pair[0], label))
        assert text == "{" + ",".join(k + ":" + v for k, v in expected) + "}", (name, text)


def _decoded_key(written, label):
    # The key a written key stands for, to sort as the canonical text does.
    return {'"rules"': "rules", '"seats"': "seats"}.get(written, label)


def test_the_canonical_text_is_ascii():
    for name, label, _ in CHARACTER_CLASSES:
        text = chain.canonical(_labelled(label))
        assert len(text.encode()) == len(text) and "\x7f" not in text, name


def test_a_record_hashed_by_the_earlier_rule_still_verifies_and_is_counted():
    # The earlier rule was MicroPython's json.dumps: DEL and everything past
    # ASCII raw in UTF-8, control characters but \n \r \t as \u00XX. Written
    # out by hand for a round labelled café, as firmware before the rule
    # hashed it.
    record = {"ev": "settled", "label": "caf\u00e9", "seq": 1, "prev": chain.GENESIS}
    old_text = '{"ev":"settled","label":"caf\u00e9","prev":"' + chain.GENESIS + '","seq":1}'
    record["hash"] = binascii.hexlify(hashlib.sha256(
        (chain.GENESIS + old_text).encode()).digest()).decode()
    assert chain.record_hash(record) != record["hash"]  # the rule did change for it
    after = chain.link({"ev": "round", "round": 1}, 2, record["hash"])
    assert chain.verify([record, after]) == (
        True, "2 records chain (1 hashed by the earlier rule, before the canonical text was "
              "ASCII)")
    forged = dict(record, label="cafe\u0301")
    assert chain.verify([forged, after]) == (False, "record 1 was altered")


def test_a_record_hashed_by_the_earlier_rule_with_del_and_backspace_verifies():
    record = {"ev": "settled", "label": "a\x7fb\bc", "seq": 3, "prev": PREV}
    old_text = '{"ev":"settled","label":"a\x7fb\\u0008c","prev":"' + PREV + '","seq":3}'
    record["hash"] = binascii.hexlify(hashlib.sha256(
        (PREV + old_text).encode()).digest()).decode()
    assert chain.verify([record])[0]
