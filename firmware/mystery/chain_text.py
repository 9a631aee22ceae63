# The two rules of the hashed text (docs/host-link.md, "The hash's text")
# that chain.py, on every record, and chain_fields.py, on the rare one it
# writes field by field, both keep: kept here so neither imports the other.

# Fields outside the hashed text: the record's own hash, and its
# authenticator, which is made over that hash (recordkey.py).
UNHASHED = ("hash", "auth")


def no_escapes(text):
    # Whether json.dumps wrote no escape and no character outside printable
    # ASCII: then both runtimes wrote the canonical text. Any string it
    # escaped (a quote, a backslash, a control character, and on CPython
    # anything past ASCII) or wrote raw past ASCII (MicroPython) takes the
    # field by field way, whose strings chain_fields.py writes.
    return "\\" not in text and "\x7f" not in text and len(text) == len(text.encode())
