# The JSON check's fast pass (table/jsonscan_plain.py, and on MicroPython its
# viper twin) against the check's definition, jsoncheck.walk, on random and
# adversarial lines: a line the fast pass passes, the walk passes; an ASCII
# line without a \u escape the walk passes, the fast pass passes; its float
# flag is set whenever a number has a fraction or exponent. On both runtimes.
import json
import sys

from lcg import Lcg
from table import jsoncheck
from table.jsoncheck import MAX_DEPTH, strict_json, walk
from table.jsonscan_plain import scan as _plain

CLASSES = jsoncheck.classes()

if sys.implementation.name == "micropython":
    from table.jsonscan_viper import scan as _viper

    def viper_scan(line):
        return _viper(line, CLASSES)
else:
    viper_scan = None


def plain_scan(line):
    return _plain(line, CLASSES)

_ROUND_LINE = (b'{"cmd": "round", "round": "bench-1", "dealer": ["Qs", "Ks"], '
               b'"board": ["9s", "Ts", "Js", "9c", "9d"], "seats": [{"seat": 1, '
               b'"cards": ["2c", "3c"], "folded": false, "wagers": {"trips": 500, '
               b'"bad_beat": 0}}], "max_payout_cents": null, "id": -7}')

# Lines at each edge of the grammar the fast pass walks itself.
_EDGES = (
    b"", b" ", b"\t\r\n", b"0", b"-0", b"01", b"-", b"-a", b"--1", b"+1", b"1.", b".5", b"1.5",
    b"1e", b"1e+", b"1e-2", b"1E5", b"1.5e3", b"0.0", b"00", b"-01", b"1ee2", b"1.2.3",
    b"tru", b"true", b"truex", b"trUe", b"fals", b"false", b"null", b"nul", b"nulll",
    b"[", b"]", b"[]", b"[ ]", b"[,]", b"[1,]", b"[,1]", b"[1 2]", b"[1,,2]", b"[1]]",
    b"{", b"}", b"{}", b"{ }", b"{,}", b'{"a"}', b'{"a":}', b'{"a" 1}', b'{"a":1,}',
    b'{1:2}', b'{"a":1 "b":2}', b'{"a"::1}', b'{"a":1}}', b'{"a":[}', b'[{]', b'[}',
    b'{]', b'{"a":1]', b'["a":1]', b'"', b'"abc', b'"a"b"', b'"\\"', b'"\\x"', b'"\\u12"',
    b'"\\u0041"', b'"\\ud800"', b'"\\/"', b'"\\b\\f\\n\\r\\t"', b'"\x01"', b'"\x1f"',
    b'"\x7f"', b'"\xc3\xa9"', b'"\xc3"', b'"\xff"', b"1 2", b'"a" "b"', b"[] []",
    b"\x0b1", b"1\x0c", b"\xa0", b"NaN", b"Infinity", b"'a'", b'{"a":1} x', b" 1 ",
    b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    b'{"a":' * MAX_DEPTH + b"1" + b"}" * MAX_DEPTH,
    b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1),
    _ROUND_LINE, _ROUND_LINE[:-1], _ROUND_LINE + b" ", _ROUND_LINE.replace(b",", b"", 1),
)
# The pieces random lines are made of, and the bytes mutations put in.
_SCALARS = (b"0", b"-1", b"12", b"1.5", b"-0.25e3", b"2E-2", b"1e400", b"true", b"false",
            b"null", b'""', b'"Qs"', b'"a\\nb"', b'"\\u00e9"', b'"\\"q\\""', '"\u00e9"'.encode())
_SPACES = (b"", b"", b" ", b"\n", b"\t ", b"\r\n")
_NOISE = b' \t\n\r\x0b\x00\x1f"\\/[]{}:,-+.0123456789eEtrufalsn\x7f\x80\xc3\xa9\xed\xa0\xf4'


def _expected(line):
    # The definition: the walk's verdict.
    try:
        walk(line)
    except ValueError:
        return False
    return True


def _value(rng, depth):
    # A random JSON value (nested past the limit now and then), as bytes.
    kind = rng.below(6) if depth < MAX_DEPTH + 2 else 0
    if kind <= 2:
        return _SCALARS[rng.below(len(_SCALARS))]
    items = [_value(rng, depth + 1) for _ in range(rng.below(4))]
    space = _SPACES[rng.below(len(_SPACES))]
    if kind == 3:
        return b"[" + space + (b"," + space).join(items) + space + b"]"
    members = [b'"k%d"' % i + space + b":" + space + item for i, item in enumerate(items)]
    return b"{" + space + (b"," + space).join(members) + space + b"}"


def _mutated(rng, line):
    at = rng.below(len(line) + 1)
    noise = bytes((_NOISE[rng.below(len(_NOISE))],))
    kind = rng.below(4)
    if kind == 0:
        return line[:at] + line[at + 1:]  # a byte dropped
    if kind == 1:
        return line[:at] + noise + line[at:]  # one put in
    if kind == 2:
        return line[:at] + noise + line[at + 1:]  # one changed
    return line[:at]  # cut short


def _lines(count):
    rng = Lcg(8259)
    for _ in range(count):
        line = _value(rng, 0)
        yield line
        yield _mutated(rng, line)
        yield _mutated(rng, _ROUND_LINE)


def _plain_only(line):
    # What the fast pass leaves to the walk: bytes past ASCII and \u escapes.
    return any(byte >= 0x80 for byte in line) or b"\\u" in line


def _has_float(value):
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, list) and any(_has_float(item) for item in value)


def _check(line):
    found = plain_scan(line)
    valid = _expected(line)
    if found >= 0:
        assert valid, "fast pass passed %r, which the walk refuses" % (line,)
        assert found == 1 or not _has_float(json.loads(line)), line
    elif valid:
        assert _plain_only(line), "fast pass not sure of %r" % (line,)
    if viper_scan is not None:
        assert viper_scan(line) == found, line
        assert viper_scan(memoryview(bytearray(line))) == found, line
    return found


def test_edges():
    for line in _EDGES:
        _check(line)


def test_random_and_mutated_lines():
    for line in _lines(600):
        _check(line)


def test_float_flag_on_each_number_form():
    for line, has in ((b"[1, 2, -3]", 0), (b"[1, 2.0]", 1), (b'{"a": 1e5}', 1),
                      (b'{"a": [0, {"b": -1E-2}]}', 1), (b'"1.5"', 0), (b'{"e": 10}', 0)):
        assert plain_scan(line) == has, line
        assert strict_json(line, fast=True) == bool(has), line
        assert strict_json(line) is True, line  # the walk alone: maybe one
    # The walk's lines are reported as maybe holding one.
    assert strict_json('{"a": "\u00e9"}', fast=True) is True


def _verdict(line, fast):
    try:
        return strict_json(line, fast)
    except ValueError as error:
        return str(error)


def test_the_fast_pass_gives_every_refusal_as_the_walk_alone():
    # The same refusal, word for word, and acceptance for the same lines.
    for lines in (_EDGES, _lines(200)):
        for line in lines:
            fast, walked = _verdict(line, True), _verdict(line, False)
            if isinstance(walked, str):
                assert fast == walked, (line, fast, walked)
            else:
                assert fast in (True, False), (line, fast)


def test_a_memoryview_part_of_a_buffer():
    # As the link gives it: the line in the front of a larger buffer.
    buffer = bytearray(_ROUND_LINE + b"garbage after")
    view = memoryview(buffer)[:len(_ROUND_LINE)]
    assert plain_scan(view) == 0
    if viper_scan is not None:
        assert viper_scan(view) == 0


def test_byte_classes_as_rfc_8259_names_them():
    # Whitespace (section 2), digits (6), the unescaped bytes of a string
    # that are ASCII (7: 0x20-21, 0x23-5B, 0x5D-7F), the
    # letters of the two-character escapes (7).
    for byte in range(256):
        bits = CLASSES[byte]
        assert bool(bits & jsoncheck.SPACE) == (byte in (0x20, 0x09, 0x0A, 0x0D)), byte
        assert bool(bits & jsoncheck.DIGIT) == (0x30 <= byte <= 0x39), byte
        plain = 0x20 <= byte <= 0x21 or 0x23 <= byte <= 0x5B or 0x5D <= byte <= 0x7F
        assert bool(bits & jsoncheck.PLAIN) == plain, byte
        assert bool(bits & jsoncheck.ESCAPE) == (chr(byte) in '"\\/bfnrt'), byte
