# The LED meter as text: the firmware's own seven-segment font (its sevenseg
# module) lays the text out as the board does, and each digit's segments are
# drawn as the MAX7219 lights them.
from table import sevenseg

from ..boards.max7219_model import DIGITS, DP, A, B, C, D, E, F, G

_STROKES = {True: ("━━", "┃", "●"), False: ("--", "|", ".")}


def led_rows(text, digits=DIGITS, fancy=True):
    # The meter as 5 rows of text, each digit 4 columns, its point and a gap
    # after it; ValueError when the board's font cannot show the text.
    out = bytearray(digits)
    sevenseg.render(text, out)
    rows = [[] for _ in range(5)]
    for segments in out:
        for row, cell in zip(rows, _digit(segments, *_STROKES[fancy]), strict=True):
            row.append(cell)
    return ["".join(row).rstrip() for row in rows]


def _digit(s, bar, post, point):
    def across(segment):
        return " %s " % bar if s & segment else "    "

    def down(left, right):
        return (post if s & left else " ") + "  " + (post if s & right else " ")

    dot = point if s & DP else " "
    return (across(A) + "  ", down(F, B) + "  ", across(G) + "  ", down(E, C) + "  ",
            across(D) + dot + " ")
