# The host link's strict JSON check (firmware/table/jsoncheck.py) against
# CPython's json on what hypothesis generates: every JSON text json.dumps
# writes is accepted, and on arbitrary bytes the check says yes exactly when
# CPython's json.loads does, apart from the board's own documented limits
# (NaN and Infinity, \u escapes of surrogates, nesting deeper than MAX_DEPTH),
# and it fails with nothing but ValueError.
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.jsoncheck import MAX_DEPTH, strict_json

SURROGATE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def depth(value):
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def accepted(data):
    try:
        strict_json(data)
    except ValueError:
        return False
    return True


def cpython_accepts(data):
    # CPython's verdict on a line, with the board's limits applied on top.
    def reject(name):
        raise ValueError(name)

    try:
        text = data.decode()  # strict UTF-8, as RFC 8259 asks
        value = json.loads(text, parse_constant=reject)
    except (ValueError, RecursionError):
        return False
    return not SURROGATE_ESCAPE.search(text) and depth(value) <= MAX_DEPTH


ascii_text = st.text(st.characters(max_codepoint=127), max_size=12)
unicode_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


def values(text):
    scalars = (st.none() | st.booleans() | st.integers(-(2 ** 80), 2 ** 80)
               | st.floats(allow_nan=False, allow_infinity=False) | text)
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(text, inner, max_size=4), max_leaves=12).filter(
        lambda v: depth(v) <= MAX_DEPTH)


layouts = st.fixed_dictionaries({
    "separators": st.sampled_from([(", ", ": "), (",", ":"), (" ,\t", " :\r\n")]),
    "indent": st.sampled_from([None, 0, 2, "\t"]),
})


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(values(ascii_text), layouts)
def test_json_dumps_of_any_ascii_value_is_accepted(value, layout):
    text = json.dumps(value, **layout)
    strict_json(text)
    strict_json(text.encode())


@settings(max_examples=800, deadline=None)
@given(values(unicode_text), layouts)
def test_json_dumps_with_raw_utf8_is_accepted(value, layout):
    # ensure_ascii=False: other text goes as raw UTF-8, astral characters too.
    strict_json(json.dumps(value, ensure_ascii=False, **layout).encode())


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(min_codepoint=0x10000), min_size=1, max_size=4))
def test_json_dumps_of_astral_text_escaped_is_refused(text):
    # ensure_ascii writes them as surrogate pairs, which the board refuses.
    assert not accepted(json.dumps({"cmd": "ping", "id": text}).encode())


def _check_agrees(data):
    try:
        verdict = accepted(data)
    except Exception as error:  # noqa: BLE001 -- anything but ValueError is a crash
        raise AssertionError("%r: %s: %s" % (data, type(error).__name__, error)) from None
    if verdict:
        assert cpython_accepts(data), data  # accepted by the check: JSON for CPython too
    else:
        assert not cpython_accepts(data), data  # and the converse, on top of the brief


@settings(max_examples=3000, deadline=None)
@given(st.binary(max_size=40))
def test_arbitrary_bytes_agree_with_cpython(data):
    _check_agrees(data)


# Bytes random enough to be mostly wrong, JSON-like enough to be often right.
TOKENS = (list('[]{},:"\\') + [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x00", "\x1f", "\x7f"]
          + list("0123456789-+.eE") + ["true", "false", "null", "NaN", "Infinity", "'", "a"]
          + ["\\u", "\\ud83d", "\\ude00", "\\u00e9", "\\uD7FF", "\\/", "\\x", "\\n"]
          + ['"a"', '"id"', '"cmd"', "\u00e9", "\u20ac", "\U0001F600"])
RAW = (b"\xff", b"\x80", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc3",
       b"\xef\xbb\xbf")  # invalid UTF-8 of several kinds, and a BOM
tokens = st.lists(st.sampled_from(TOKENS).map(str.encode) | st.sampled_from(RAW),
                  max_size=30).map(b"".join)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens)
def test_token_soup_agrees_with_cpython(data):
    _check_agrees(data)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(values(unicode_text), st.data())
def test_mutated_json_agrees_with_cpython(value, data):
    # A valid text with a few bytes deleted, doubled or replaced.
    text = bytearray(json.dumps(value, ensure_ascii=data.draw(st.booleans())).encode())
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, max(0, len(text) - 1)))
        edit = data.draw(st.sampled_from(("delete", "double", "replace")))
        if not text:
            break
        if edit == "delete":
            del text[at]
        elif edit == "double":
            text.insert(at, text[at])
        else:
            text[at] = data.draw(st.sampled_from(b'[]{},:"\\ 0.-eE+tx\t\x00\x80'))
    _check_agrees(bytes(text))


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=30))
def test_str_input_fails_only_with_value_error(text):
    # A str is checked as its UTF-8; one with a lone surrogate cannot be.
    try:
        strict_json(text)
    except ValueError:
        pass


def test_nesting_limit_matches_the_depth_oracle():
    for n in range(1, 40):
        line = b"[" * n + b"]" * n
        assert accepted(line) == (n <= MAX_DEPTH) == cpython_accepts(line), n
