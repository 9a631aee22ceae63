# The host link's strict JSON check (table/jsoncheck.py) against RFC 8259's
# grammar: what it accepts, what it refuses, on both runtimes.
from table.jsoncheck import MAX_DEPTH, strict_json


def _accepts(*lines):
    for line in lines:
        try:
            strict_json(line)
        except ValueError as error:
            raise AssertionError("%r refused: %s" % (line, error)) from None


def _refuses(*lines, needle=""):
    for line in lines:
        try:
            strict_json(line)
        except ValueError as error:
            assert needle in str(error), "%r: %r does not mention %r" % (line, str(error), needle)
            continue
        raise AssertionError("%r accepted" % (line,))


# ---- accepted ----


def test_rfc_8259_examples():
    # Section 13's two examples, as one line each.
    _accepts(
        b'{"Image": {"Width": 800, "Height": 600, "Title": "View from 15th Floor", '
        b'"Thumbnail": {"Url": "http://www.example.com/image/481989943", "Height": 125, '
        b'"Width": 100}, "Animated" : false, "IDs": [116, 943, 234, 38793]}}',
        b'[{"precision": "zip", "Latitude": 37.7668, "Longitude": -122.3959, '
        b'"Address": "", "City": "SAN FRANCISCO", "State": "CA", "Zip": "94107", '
        b'"Country": "US"}, {"precision": "zip", "Latitude": 37.371991, '
        b'"Longitude": -122.026020, "Address": "", "City": "SUNNYVALE", "State": "CA", '
        b'"Zip": "94085", "Country": "US"}]',
        # Any value is a JSON text, not only an object or array.
        b'"Hello world!"', b"42", b"true",
    )


def test_commands_as_the_host_sends_them():
    _accepts(b'{"cmd": "ping", "id": 1}', b'{"cmd":"config","mystery":"B2"}',
             b'{"cmd": "log", "since": 0, "id": "fuzz-log"}', '{"cmd": "status"}')


def test_literals_and_empty_containers():
    _accepts(b"null", b"false", b"[]", b"{}", b"[[]]", b"[{}]", b'{"a": {}}',
             b"[true, false, null]", b'""')


def test_nesting_mixed():
    _accepts(b'{"a": [1, {"b": [2, [3, {"c": null}]]}], "d": {"e": {"f": []}}}',
             b'[[1, 2], [3, [4, [5]]], {"x": [{"y": {}}]}]')


def test_whitespace_is_space_tab_cr_lf_anywhere_between_tokens():
    _accepts(b' \t\r\n{ "a" :\t[ 1 ,2\r, 3\n] , "b":{ } }\n\t ', b"[ ]", b"{\t}", b" 0 ")


def test_numbers():
    _accepts(b"0", b"-0", b"1", b"-1", b"10", b"1234567890", b"0.5", b"-0.0", b"1.5e-3",
             b"1E5", b"1e+5", b"1E-05", b"0e0", b"-0.000", b"3.141592653589793",
             b"123456789012345678901234567890", b"1e400", b"-1e-400", b"[0,-0,1.0e0]")


def test_escapes():
    _accepts(b'"\\"\\\\\\/\\b\\f\\n\\r\\t"', b'"\\u0000\\u001f\\u00e9\\u20AC\\uFFFF"',
             b'"\\uD7FF\\uE000"', b'"a\\\\u"', b'"\\\\uD800"')  # the last: \\ then "uD800"


def test_raw_utf8_and_del_in_strings():
    _accepts('"\u00e9t\u00e9 \u20ac \U0001F600"'.encode(), '"\U0010FFFF"'.encode(),
             b'"\x7f"', '["\u00e9t\u00e9"]')


def test_nesting_up_to_the_limit():
    _accepts(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH,
             b'{"a":' * MAX_DEPTH + b"1" + b"}" * MAX_DEPTH)


# ---- refused ----


def test_trailing_commas():
    _refuses(b"[1,]", b'{"a": 1,}', b'{"cmd": "ping", "id": 1,}', b"[,]", b"[,1]", b"{,}",
             b"[1,,2]", b'{"a": 1,, "b": 2}')


def test_missing_commas_and_colons():
    _refuses(b"[1 2]", b'{"a": 1 "b": 2}', b'{"cmd": "ping" "id": 2}', b'{"a" 1}',
             b'{"cmd" "config" "mystery" "A1"}', b'{"a"}', b'{"a":}', b'{"a"::1}',
             b'{"a", "b"}', b"[1:2]")


def test_names_must_be_strings_in_double_quotes():
    _refuses(b"{'a': 1}", b"['a']", b'{a: 1}', b"{1: 2}", b'{null: 1}', b"'a'")


def test_numbers_outside_the_grammar():
    _refuses(b"01", b"-01", b"00", b".5", b"-.5", b"1.", b"1.e5", b"+1", b"-", b"--1",
             b"1e", b"1e+", b"1E-", b"0x10", b"1_000", b"1.5.2", b"[01]", b'{"a": 01}',
             b"- 1", b"\xd9\xa3")  # the last: ARABIC-INDIC DIGIT THREE


def test_nan_and_infinity():
    _refuses(b"NaN", b"Infinity", b"-Infinity", b'{"cmd": "ping", "id": NaN}', b"[nan]",
             b"inf")


def test_literals_spelled_otherwise():
    _refuses(b"True", b"FALSE", b"nul", b"nulll", b"tru", b"t", b"None", b"[undefined]")


def test_raw_control_characters_in_strings():
    _refuses(b'"a\tb"', b'"a\nb"', b'"\x00"', b'"\x1f"', b'{"cmd": "ping\r"}',
             needle="control character")


def test_bad_escapes():
    _refuses(b'"\\x41"', b'"\\a"', b'"\\U0041"', b'"\\u41"', b'"\\u00g1"', b'"\\ "',
             b'"\\\'"', b'"\\0"', b'"\\', b'"\\u12', needle="")


def test_surrogate_escapes_lone_or_paired():
    # RFC 8259 section 7's G clef, "\uD834\uDD1E", is JSON; the board refuses it.
    _refuses(b'"\\uD834\\uDD1E"', b'"\\ud83d\\ude00"', b'"\\uD800"', b'"\\uDFFF"',
             b'"\\udc00"', b'{"cmd": "ping", "id": "\\ud83d\\ude00"}',
             needle="surrogate")


def test_strings_not_closed():
    _refuses(b'"', b'"abc', b'["abc]', b'{"cmd": "ping}', b'"abc\\"')


def test_invalid_utf8():
    _refuses(b'"\xff"', b'"\xc3"', b'"\xc3("', b'"\x80"', b'"\xe2\x82"',
             b'"\xc0\x80"', b'"\xe0\x80\xaf"', b'"\xf0\x80\x80\xaf"',  # overlong
             b'"\xed\xa0\x80"', b'"\xed\xbf\xbf"',  # surrogates
             b'"\xf4\x90\x80\x80"', b'"\xf5\x80\x80\x80"',  # past U+10FFFF
             needle="UTF-8")


def test_text_after_the_value():
    _refuses(b"{} {}", b"[1] 2", b'{"cmd": "ping"}x', b"1 2", b"true false", b"[]]", b"{}}",
             b'{"a": 1}}', b"null,", needle="after")


def test_brackets_that_do_not_match():
    _refuses(b"[1}", b'{"a": 1]', b"[", b"{", b"[[]", b'{"a": [}', b"]", b"}", b"[}",
             b'{"a": {"b": 1}')


def test_whitespace_other_than_the_four():
    # Vertical tab, form feed, NBSP, a UTF-8 BOM: bytes.strip() or Python may
    # take them for space; JSON does not.
    _refuses(b"\x0b1", b"1\x0c", b"[1,\x0b2]", b"\xc2\xa01", b"\xef\xbb\xbf{}")


def test_empty_and_blank():
    _refuses(b"", b" ", b"\t\r\n", needle="ends")


def test_nesting_too_deep():
    _refuses(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
             b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1),
             b"[" * 128 + b"]" * 128, b"[" * 200, needle="deeper")


def test_a_depth_once_reached_counts_only_while_open():
    # Siblings do not add up: 16 levels twice in a row is still 16.
    level = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    _accepts(b"[" + level[1:-1] + b"," + level[1:-1] + b"]")
