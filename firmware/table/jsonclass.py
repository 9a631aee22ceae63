# The byte classes the JSON check's fast pass reads (jsonscan_plain and its
# viper twin): one table of 256 bytes, a bit for each class a byte is in. A
# byte in no class (a control character, or past ASCII) is never passed.
from micropython import const

SPACE = const(1)  # JSON's whitespace: space, tab, line feed, carriage return
DIGIT = const(2)
PLAIN = const(4)  # stands for itself in a string: printable ASCII but " and \
ESCAPE = const(8)  # may follow a \: " \ / b f n r t (\u is left to the full walk)

_table = bytearray(256)
for _c in b" \t\n\r":
    _table[_c] = SPACE
for _c in range(0x30, 0x3A):
    _table[_c] = DIGIT
for _c in range(0x20, 0x7F + 1):
    if _c != 0x22 and _c != 0x5C:
        _table[_c] |= PLAIN
for _c in b'"\\/bfnrt':
    _table[_c] |= ESCAPE
CLASSES = bytes(_table)
del _table, _c
