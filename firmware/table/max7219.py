# The LED meter on a MAX7219: up to eight seven-segment digits over SPI.
# Every register write is one 16-bit frame, register byte first, latched by the
# rising edge of CS (the chip's LOAD pin); the bus is SPI mode 0, MSB first, at
# most 10 MHz. The board makes the SPI bus and the CS pin and hands them in.
#
# Digit register 1 (DIG0) is the rightmost digit on the usual 8-digit modules,
# register 8 the leftmost. Segments go out raw (no-decode mode) from sevenseg.
from micropython import const

from . import sevenseg

_DIGIT_1 = const(0x01)
_DECODE_MODE = const(0x09)
_INTENSITY = const(0x0A)
_SCAN_LIMIT = const(0x0B)
_SHUTDOWN = const(0x0C)
_DISPLAY_TEST = const(0x0F)


class Max7219:
    def __init__(self, spi, cs, digits=8, intensity=8):
        if not 1 <= digits <= 8:
            raise ValueError("a MAX7219 drives 1 to 8 digits")
        if not 0 <= intensity <= 15:
            raise ValueError("MAX7219 intensity is 0 to 15")
        self.spi = spi
        self.cs = cs
        self.digits = digits
        self.segments = bytearray(digits)  # leftmost digit first
        self.frame = bytearray(2)  # reused: a register write allocates nothing
        cs.value(1)
        self._start(intensity)

    def _start(self, intensity):
        # The chip powers up shut down, in an unknown test/decode state and
        # with stale digit registers: set everything and blank the digits
        # before leaving shutdown, so no garbage ever flashes on the table.
        self._write(_DISPLAY_TEST, 0)
        self._write(_DECODE_MODE, 0)
        self._write(_SCAN_LIMIT, self.digits - 1)
        self._write(_INTENSITY, intensity)
        self._write_digits()
        self._write(_SHUTDOWN, 1)

    def show(self, text):
        # Raises ValueError (from sevenseg) before touching the chip, so a bad
        # text leaves the display as it was.
        sevenseg.render(text, self.segments)
        self._write_digits()

    def _write_digits(self):
        last = self.digits - 1
        for register in range(self.digits):
            self._write(_DIGIT_1 + register, self.segments[last - register])

    def _write(self, register, data):
        frame = self.frame
        frame[0] = register
        frame[1] = data
        self.cs.value(0)
        self.spi.write(frame)
        self.cs.value(1)
