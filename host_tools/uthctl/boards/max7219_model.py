# What a MAX7219 lights, from the register writes it receives: the emulated
# Pico's SPI0 frames (pico.py) decoded as the chip would, per its
# datasheet, independently of the firmware's driver (firmware/table/max7219.py).
#
#   0x01-0x08  digit 0-7 (DIG0 is the rightmost digit on the usual modules)
#   0x09       decode mode: bit n set = digit n in Code B, else raw segments
#   0x0A       intensity 0-15        0x0B  scan limit: digits 0..n are shown
#   0x0C       shutdown: bit 0 = 0 blanks the display, 1 runs it
#   0x0F       display test: bit 0 = 1 lights every segment (over shutdown)
#
# Raw segment bits, DP A B C D E F G from bit 7 down. At power-up the chip is
# shut down with its registers cleared.
#
# The lit segments read back as text through the firmware's own font
# (table/sevenseg.py): what the board meant to show, not a second copy of it.
from table import sevenseg

DIGITS = 8
ALL_ON = 0xFF
DP, A, B, C, D, E, F, G = (0x80 >> bit for bit in range(8))
# Code B: 0-9, '-', 'E', 'H', 'L', 'P', blank; bit 7 of the data is the point.
_CODE_B = (0x7E, 0x30, 0x6D, 0x79, 0x33, 0x5B, 0x5F, 0x70, 0x7F, 0x7B,
           0x01, 0x4F, 0x37, 0x0E, 0x67, 0x00)


def _font():
    # Each character the firmware's font draws, with its segments.
    font = {}
    for ch in map(chr, range(32, 127)):
        try:
            font[ch] = sevenseg.glyph(ch)
        except ValueError:
            pass
    return font


_FONT = _font()
# Seven-segment patterns read back as text: digits win where a letter looks
# the same (O reads 0, S reads 5), as a person reading the meter would; of two
# letters drawn alike, the first in the alphabet (v reads u).
_GLYPHS = {}
for _ch in sorted(_FONT, key=lambda ch: (not ch.isdigit(), ch)):
    _GLYPHS.setdefault(_FONT[_ch], _ch)


class Max7219:
    def __init__(self):
        self.digit = [0] * DIGITS  # registers 1..8
        self.decode = 0
        self.intensity = 0
        self.scan_limit = 0
        self.running = False  # shutdown register bit 0
        self.test = False
        self.writes = 0

    def write(self, register, data):
        # One 16-bit frame as latched by LOAD: the low nibble of the first
        # byte addresses a register (0x00 is no-op), the second is the data.
        register &= 0x0F
        data &= 0xFF
        self.writes += 1
        if 1 <= register <= DIGITS:
            self.digit[register - 1] = data
        elif register == 0x09:
            self.decode = data
        elif register == 0x0A:
            self.intensity = data & 0x0F
        elif register == 0x0B:
            self.scan_limit = data & 0x07
        elif register == 0x0C:
            self.running = bool(data & 1)
        elif register == 0x0F:
            self.test = bool(data & 1)

    def lit(self):
        # The segments each digit shows, leftmost first (DIG7 .. DIG0).
        if self.test:
            return [ALL_ON] * DIGITS
        if not self.running:
            return [0] * DIGITS
        shown = []
        for n in range(DIGITS - 1, -1, -1):
            if n > self.scan_limit:
                shown.append(0)
            elif self.decode >> n & 1:
                data = self.digit[n]
                shown.append(_CODE_B[data & 0x0F] | (data & 0x80))
            else:
                shown.append(self.digit[n])
        return shown

    def text(self):
        # The lit digits as text, a lit point as "." after its digit, leading
        # blanks dropped; None while nothing is lit (shut down or blank) and
        # "?" for a pattern that is no glyph.
        shown = self.lit()
        if not any(shown):
            return None
        out = []
        for segments in shown:
            out.append(_GLYPHS.get(segments & 0x7F, "?"))
            if segments & 0x80:
                out.append(".")
        return "".join(out).lstrip(" ") or None


def reading(text):
    # Display text as a reader of the digits sees it: letters drawn the same
    # as a digit or another letter read as that one. The virtual board reports
    # the text its firmware sent, the emulated Pico what its MAX7219 lights;
    # the two compare equal through this ("SErvICE" and "5EruICE").
    if text is None:
        return None
    return "".join(_GLYPHS[_FONT[ch]] if ch in _FONT else ch for ch in text)
