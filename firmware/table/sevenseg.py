# The seven-segment font and layout shared by the LED meter drivers.
#
#        A
#      F   B        One byte a digit, MAX7219 no-decode order:
#        G            bit 7 6 5 4 3 2 1 0
#      E   C              DP A B C D E F G
#        D   DP     TM1637 wants A..G in bits 0..6 and DP in bit 7: tm1637_order().
#
# render() lays text out right-aligned, a '.' lighting the point of the digit
# before it. Text too long for the display loses leading characters only while
# they are a label ("hit bY", "SErv"): a digit of an amount is never dropped, as a
# meter missing its leading digit would show players a wrong amount; such text
# raises ValueError and the display keeps what it showed.
from micropython import const

DP = const(0x80)
_A = const(0x40)
_B = const(0x20)
_C = const(0x10)
_D = const(0x08)
_E = const(0x04)
_F = const(0x02)
_G = const(0x01)

# Keys are one-character literals on purpose: MicroPython interns them when the
# module loads, so text[i] in render() finds them and allocates nothing.
_FONT = {
    "0": _A | _B | _C | _D | _E | _F,
    "1": _B | _C,
    "2": _A | _B | _D | _E | _G,
    "3": _A | _B | _C | _D | _G,
    "4": _B | _C | _F | _G,
    "5": _A | _C | _D | _F | _G,
    "6": _A | _C | _D | _E | _F | _G,
    "7": _A | _B | _C,
    "8": _A | _B | _C | _D | _E | _F | _G,
    "9": _A | _B | _C | _D | _F | _G,
    " ": 0,
    "-": _G,
    "_": _D,
    "A": _A | _B | _C | _E | _F | _G,
    "b": _C | _D | _E | _F | _G,
    "C": _A | _D | _E | _F,
    "c": _D | _E | _G,
    "d": _B | _C | _D | _E | _G,
    "E": _A | _D | _E | _F | _G,
    "F": _A | _E | _F | _G,
    "G": _A | _C | _D | _E | _F,
    "H": _B | _C | _E | _F | _G,
    "h": _C | _E | _F | _G,
    "i": _E,  # the lower left bar, as "hit" is written on seven segments
    "I": _E | _F,  # the left bar, so an I never reads as a 1
    "J": _B | _C | _D | _E,
    "L": _D | _E | _F,
    "n": _C | _E | _G,
    "O": _A | _B | _C | _D | _E | _F,
    "o": _C | _D | _E | _G,
    "P": _A | _B | _E | _F | _G,
    "r": _E | _G,
    "S": _A | _C | _D | _F | _G,
    "t": _D | _E | _F | _G,
    "U": _B | _C | _D | _E | _F,
    "u": _C | _D | _E,
    "v": _C | _D | _E,
    "Y": _B | _C | _D | _F | _G,
}


def glyph(ch):
    segments = _FONT.get(ch)
    if segments is None:
        raise ValueError("no seven-segment glyph for %r" % ch)
    return segments


def render(text, out):
    # Fills `out` (a bytearray, leftmost digit first) with `text` right-aligned
    # and blanks the digits to its left. Walks right to left so the point
    # after a character is known before the character is placed.
    digit = len(out)
    i = len(text)
    while i > 0:
        i -= 1
        segments = 0
        if text[i] == "." and i > 0 and text[i - 1] != ".":
            segments = DP
            i -= 1
        if text[i] == ".":
            segments |= DP  # a point with no character before it stands alone
        else:
            segments |= glyph(text[i])
        if digit == 0:
            _check_label(text, i)
            break
        digit -= 1
        out[digit] = segments
    while digit > 0:
        digit -= 1
        out[digit] = 0


def _check_label(text, last):
    # text[0..last] does not fit: it may be dropped only if it holds no digit.
    for i in range(last + 1):
        if "0" <= text[i] <= "9":
            raise ValueError("%r needs more digits than the display's" % text)


def tm1637_order(segments):
    # DP,A..G in bits 7..0 -> A..G in bits 0..6 with DP kept in bit 7: the
    # seven segment bits reverse, the point stays where it is.
    out = segments & DP
    for bit in range(7):
        if segments & (_A >> bit):
            out |= 1 << bit
    return out
