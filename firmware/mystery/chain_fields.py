# A record's canonical text written field by field (docs/host-link.md, "The
# hash's text"): what chain.canonical() gives for a record json.dumps would
# not write as the definition says (a dict or a tuple in a value, a string
# needing an escape or holding a character past ASCII), and the text by the
# earlier rule that a log kept across an update may hold. It is imported only
# when such a record comes, so most boards never load it.
import json

from .chain_text import UNHASHED, no_escapes


def by_fields(record, earlier=False, left_out=UNHASHED):
    # left_out: the top level's own hash and authenticator; a dict inside a
    # value leaves out only a "hash", as the text has always been written.
    parts = []
    for key in sorted(record):
        if key not in left_out:
            parts.append(_string(key, earlier) + ":" + _value(record[key], earlier))
    return "{" + ",".join(parts) + "}"


def _value(value, earlier):
    if isinstance(value, list):
        return "[" + ",".join(_value(item, earlier) for item in value) + "]"
    if isinstance(value, dict):
        return by_fields(value, earlier, ("hash",))
    if isinstance(value, str):
        return _string(value, earlier)
    return json.dumps(value)


def _string(text, earlier):
    # A string as the canonical text writes it: printable ASCII as itself
    # but for \" and \\, newline, return and tab as \n \r \t, every other
    # character as \u and four lower-case hex digits (a UTF-16 pair past
    # U+FFFF). The earlier rule writes DEL and everything past ASCII raw
    # (docs/host-link.md, "The hash's text").
    written = json.dumps(text)
    if no_escapes(written):
        return written
    out = []
    for char in text:
        code = ord(char)
        if char == '"' or char == "\\":
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F or (earlier and code >= 0x7F):
            out.append(char)
        elif char == "\n" or char == "\r" or char == "\t":
            out.append(json.dumps(char)[1:-1])
        elif code > 0xFFFF:
            code -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)))
        else:
            out.append("\\u%04x" % code)
    return '"' + "".join(out) + '"'
