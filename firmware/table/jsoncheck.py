# A strict check of one host-link line against JSON's grammar (RFC 8259),
# made before json.loads sees the line. MicroPython's json is lenient: it
# takes missing commas and colons, a trailing comma and raw control
# characters, and its bytes.decode() lets overlong and surrogate UTF-8
# through, so a line that is not JSON could still run as a command. The host
# link's rule is that such a line gets an error and changes nothing.
#
# Beyond the grammar, two limits of the board's own:
#   - a \u escape of a surrogate (D800-DFFF) is refused, paired or not: the
#     board's json does not join an escaped pair, so the value it would echo
#     back is not the one sent. Ids should be integers or ASCII strings; other
#     text may be sent as raw UTF-8.
#   - arrays and objects nest at most MAX_DEPTH deep, so a 256-byte line of
#     brackets cannot exhaust the small stack of whatever walks the value next.
#
# The walk goes by index over the bytes, keeps its open containers as bits of
# one int and never slices, so checking a line allocates nothing but the
# error it may raise (and one bytes copy when given a str). It is the
# definition, and what gives every refusal. A long line (a round's) may go
# through a fast pass first (jsonscan_viper on the board, its twin
# jsonscan_plain elsewhere), because the walk is slow on a Pico for a line
# that long (docs/benchmarks.md, "The round's time"); then only a line the
# fast pass is not sure of is walked here.
import sys

from micropython import const

from uth.let_go import let_go

# The byte classes the fast pass reads, a bit for each class a byte is in
# (the scanners compile the same bits in as constants). A byte in no class,
# a control character or one past ASCII, is never passed.
SPACE = const(1)  # JSON's whitespace: space, tab, line feed, carriage return
DIGIT = const(2)
PLAIN = const(4)  # stands for itself in a string: printable ASCII but " and \
ESCAPE = const(8)  # may follow a \: " \ / b f n r t (\u is left to the walk)


def classes():
    # The table of byte classes, 256 bytes.
    table = bytearray(256)
    for c in b" \t\n\r":
        table[c] = SPACE
    for c in range(0x30, 0x3A):
        table[c] = DIGIT
    for c in range(0x20, 0x7F + 1):
        if c != 0x22 and c != 0x5C:
            table[c] |= PLAIN
    for c in b'"\\/bfnrt':
        table[c] |= ESCAPE
    return bytes(table)


MAX_DEPTH = const(16)

_TAB = const(0x09)
_LF = const(0x0A)
_CR = const(0x0D)
_SPACE = const(0x20)
_QUOTE = const(0x22)
_PLUS = const(0x2B)
_COMMA = const(0x2C)
_MINUS = const(0x2D)
_DOT = const(0x2E)
_ZERO = const(0x30)
_NINE = const(0x39)
_COLON = const(0x3A)
_OPEN_ARRAY = const(0x5B)
_BACKSLASH = const(0x5C)
_CLOSE_ARRAY = const(0x5D)
_OPEN_OBJECT = const(0x7B)
_CLOSE_OBJECT = const(0x7D)
_UPPER_E = const(0x45)
_LOWER_E = const(0x65)
_LOWER_U = const(0x75)
_END = const(-1)  # what _peek gives past the last byte

_SIMPLE_ESCAPES = b'"\\/bfnrt'
_TRUE = b"true"
_FALSE = b"false"
_NULL = b"null"


def strict_json(line, fast=False):
    # ValueError saying where it fails unless `line` (bytes or str) is
    # exactly one JSON value, optionally surrounded by JSON whitespace. Gives
    # whether the value may hold a float (a number with a fraction or an
    # exponent): False only for a line the fast pass (fast=True) found
    # surely without one. The refusals are the walk's either way.
    data = line.encode() if isinstance(line, str) else line
    loaded = _fast_pass() if fast else False
    if loaded:
        scan, table = loaded
        found = scan(data, table)
        if found >= 0:
            return found == 1
    walk(data)
    return True


# The fast pass, (scan, classes), loaded at its first use: a table never
# sent a long line never compiles it. False: none on this board (no native
# emitter, or no heap to compile it when first asked), and the walk alone.
_fast = None


def _fast_pass():
    global _fast
    if _fast is None:
        _fast = False
        try:
            if sys.implementation.name == "micropython":
                scan = _compiled_scan()
            else:
                from .jsonscan_plain import scan
            _fast = (scan, classes())
        except Exception:  # noqa: BLE001 -- MemoryError among them: the walk serves
            pass
    return _fast


def _compiled_scan():
    # jsonscan_viper's scan, and the module let go: the compiled function
    # needs nothing of it, and the module keeps the source it compiled among
    # its constants for as long as it is loaded (docs/benchmarks.md, "The
    # round's time").
    from . import jsonscan_viper

    scan = jsonscan_viper.scan
    let_go(jsonscan_viper.__name__)
    return scan


def walk(data):
    # The check itself, on bytes: ValueError saying where `data` fails.
    end = len(data)
    at = _skip(data, _walk(data, _skip(data, 0, end), end), end)
    if at != end:
        raise ValueError("text after the JSON value at byte %d" % at)


def _fail(what, data, at, end):
    if at >= end:
        raise ValueError("the line ends early: expected %s" % what)
    raise ValueError("expected %s at byte %d" % (what, at))


def _peek(data, at, end):
    return data[at] if at < end else _END


def _skip(data, at, end):
    # JSON's whitespace is these four only: no vertical tab, form feed or NBSP.
    while at < end:
        c = data[at]
        if c != _SPACE and c != _TAB and c != _LF and c != _CR:
            break
        at += 1
    return at


def _closer(stack):
    return _CLOSE_OBJECT if stack & 1 else _CLOSE_ARRAY


def _walk(data, at, end):
    # One value starting at `at` (whitespace skipped); returns the index after
    # it. Iterative: bit 0 of `stack` is the innermost open container
    # (1 = object, 0 = array), `depth` how many are open.
    stack = depth = 0
    while True:
        # A value is expected here.
        c = _peek(data, at, end)
        if c == _OPEN_ARRAY or c == _OPEN_OBJECT:
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError("arrays and objects nested deeper than %d" % MAX_DEPTH)
            stack = (stack << 1) | (1 if c == _OPEN_OBJECT else 0)
            at = _skip(data, at + 1, end)
            if _peek(data, at, end) != _closer(stack):
                if stack & 1:
                    at = _key(data, at, end)
                continue
            # Empty: the loop below closes it.
        else:
            at = _scalar(data, at, end, c)
        # After a value: close what it completes, then a comma starts the next.
        while True:
            if depth == 0:
                return at
            at = _skip(data, at, end)
            c = _peek(data, at, end)
            if c == _COMMA:
                break
            if c != _closer(stack):
                _fail("',' or '%s'" % chr(_closer(stack)), data, at, end)
            stack >>= 1
            depth -= 1
            at += 1
        at = _skip(data, at + 1, end)
        if stack & 1:
            at = _key(data, at, end)


def _key(data, at, end):
    # An object member's name and colon; returns the index of its value.
    if _peek(data, at, end) != _QUOTE:
        _fail("a member name in double quotes", data, at, end)
    at = _skip(data, _string(data, at, end), end)
    if _peek(data, at, end) != _COLON:
        _fail("':'", data, at, end)
    return _skip(data, at + 1, end)


def _scalar(data, at, end, c):
    if c == _QUOTE:
        return _string(data, at, end)
    if c == _MINUS or _ZERO <= c <= _NINE:
        return _number(data, at, end)
    if c == 0x74:  # t
        return _literal(data, at, end, _TRUE)
    if c == 0x66:  # f
        return _literal(data, at, end, _FALSE)
    if c == 0x6E:  # n
        return _literal(data, at, end, _NULL)
    # NaN, Infinity, single quotes, a stray ',' or ']' and the like.
    _fail("a JSON value", data, at, end)


def _literal(data, at, end, word):
    for i in range(len(word)):
        if _peek(data, at + i, end) != word[i]:
            _fail("'%s'" % word.decode(), data, at + i, end)
    return at + len(word)


def _digits(data, at, end):
    # One or more decimal digits.
    if not _ZERO <= _peek(data, at, end) <= _NINE:
        _fail("a digit", data, at, end)
    while at < end and _ZERO <= data[at] <= _NINE:
        at += 1
    return at


def _number(data, at, end):
    # -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? : no leading zeros,
    # no bare '.5' or '1.', no '+1'. Range is json.loads's concern (1e400).
    if data[at] == _MINUS:
        at += 1
    if _peek(data, at, end) == _ZERO:
        at += 1
    else:
        at = _digits(data, at, end)
    if _peek(data, at, end) == _DOT:
        at = _digits(data, at + 1, end)
    c = _peek(data, at, end)
    if c == _LOWER_E or c == _UPPER_E:
        at += 1
        c = _peek(data, at, end)
        if c == _PLUS or c == _MINUS:
            at += 1
        at = _digits(data, at, end)
    return at


def _string(data, at, end):
    # From the opening quote at `at` to just past the closing one.
    at += 1
    while at < end:
        c = data[at]
        if c == _QUOTE:
            return at + 1
        if c == _BACKSLASH:
            at = _escape(data, at + 1, end)
        elif c < _SPACE:
            raise ValueError("a raw control character in a string at byte %d: "
                             "escape it (\\n, \\t, \\u00XX)" % at)
        elif c < 0x80:
            at += 1
        else:
            at = _utf8(data, at, end)
    raise ValueError("a string is not closed before the line ends")


def _escape(data, at, end):
    # The escape after a backslash; returns the index after it.
    c = _peek(data, at, end)
    if c != _END and c in _SIMPLE_ESCAPES:
        return at + 1
    if c != _LOWER_U:
        _fail("an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", data, at, end)
    code = 0
    for i in range(1, 5):
        digit = _hex(_peek(data, at + i, end))
        if digit < 0:
            _fail("4 hex digits after \\u", data, at + i, end)
        code = (code << 4) | digit
    if 0xD800 <= code <= 0xDFFF:
        # The board's json would not join a pair: see the top of this file.
        raise ValueError("\\u escapes of surrogates (D800-DFFF) are refused, at byte %d: "
                         "use ASCII or raw UTF-8" % (at - 1))
    return at + 5


def _hex(c):
    if _ZERO <= c <= _NINE:
        return c - _ZERO
    c |= 0x20  # lower case; harmless for _END, which matches nothing below
    if 0x61 <= c <= 0x66:  # a-f
        return c - 0x61 + 10
    return -1


def _utf8(data, at, end):
    # One multi-byte UTF-8 character (RFC 3629): no overlong forms, no
    # surrogates, nothing past U+10FFFF. MicroPython's bytes.decode() lets all
    # three through and CPython's does not; checking here makes both agree.
    lead = data[at]
    low, high = 0x80, 0xBF  # the allowed range of the first continuation byte
    if 0xC2 <= lead <= 0xDF:
        more = 1
    elif 0xE0 <= lead <= 0xEF:
        more = 2
        if lead == 0xE0:
            low = 0xA0  # below: overlong
        elif lead == 0xED:
            high = 0x9F  # above: a surrogate
    elif 0xF0 <= lead <= 0xF4:
        more = 3
        if lead == 0xF0:
            low = 0x90  # below: overlong
        elif lead == 0xF4:
            high = 0x8F  # above: past U+10FFFF
    else:
        raise ValueError("not UTF-8 at byte %d" % at)
    for i in range(1, more + 1):
        c = _peek(data, at + i, end)
        if not low <= c <= high:
            raise ValueError("not UTF-8 at byte %d" % (at + i))
        low, high = 0x80, 0xBF
    return at + more + 1
