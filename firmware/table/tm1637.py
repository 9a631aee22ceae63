# The LED meter on a TM1637 module (4 or 6 digits), bit-banged over its
# two-wire bus. Both lines idle high through the module's pull-ups:
#   start: DIO falls while CLK is high;  stop: DIO rises while CLK is high;
#   a byte: 8 bits LSB first, DIO set while CLK is low, read on CLK rising;
#   ack: after the 8th bit the chip pulls DIO low through the 9th clock.
# The board hands in two pins. DIO should be open-drain (machine.Pin(n,
# Pin.OPEN_DRAIN, value=1)): value(1) releases the line and value() reads it,
# which is how the chip's ack is heard without switching the pin's mode. With a
# pin that cannot read the line, pass read_ack=False: the 9th clock is still
# sent with DIO released, and the ack goes unchecked.
import time

from micropython import const

from . import sevenseg

_DATA_AUTO = const(0x40)  # write display data, address auto-increment
_ADDRESS = const(0xC0)  # | first address
_DISPLAY_ON = const(0x88)  # | brightness 0..7
_HALF_US = const(5)  # half a clock period: 100 kHz, well under the chip's limit


def _no_delay(us):
    pass


class Tm1637:
    # digits: 4 or 6. addresses: the chip address of each digit from the left,
    # for modules wired out of order (a common 6-digit module needs
    # b"\x02\x01\x00\x05\x04\x03"); by default left to right from 0.
    def __init__(self, clk, dio, digits=6, brightness=7, delay_us=None, read_ack=True,
                 addresses=None):
        if digits not in (4, 6):
            raise ValueError("TM1637 modules have 4 or 6 digits")
        if not 0 <= brightness <= 7:
            raise ValueError("TM1637 brightness is 0 to 7")
        self.clk = clk
        self.dio = dio
        self.brightness = brightness
        self.delay = delay_us or getattr(time, "sleep_us", _no_delay)
        self.read_ack = read_ack
        self.addresses = addresses or bytes(range(digits))
        if sorted(self.addresses) != list(range(digits)):
            raise ValueError("addresses must name each of the %d digits once" % digits)
        self.segments = bytearray(digits)  # leftmost digit first
        self.frame = bytearray(digits)  # in chip address order
        self.missed_acks = 0  # bytes the chip did not acknowledge, ever
        clk.value(1)
        dio.value(1)

    def show(self, text):
        # True when the chip acknowledged every byte. A missing display is
        # counted, not raised: the meter is also on the host link. Bad text
        # raises ValueError (from sevenseg) before anything is sent.
        sevenseg.render(text, self.segments)
        for position in range(len(self.segments)):
            segments = sevenseg.tm1637_order(self.segments[position])
            self.frame[self.addresses[position]] = segments
        missed = self.missed_acks
        self._send()
        return self.missed_acks == missed

    def check(self):
        # The frame shown sent again: True when the chip acknowledged every
        # byte. The controller's display watch (display_watch.py) calls it
        # while the text stands still, so a chip that stops answering is
        # heard within a check's period, not only at the next change.
        missed = self.missed_acks
        self._send()
        return self.missed_acks == missed

    def _send(self):
        self._command(_DATA_AUTO)
        self._start()
        self._byte(_ADDRESS)
        for data in self.frame:
            self._byte(data)
        self._stop()
        self._command(_DISPLAY_ON | self.brightness)

    def _command(self, command):
        self._start()
        self._byte(command)
        self._stop()

    def _start(self):
        # From idle (both high): DIO falls while CLK is high, then CLK falls.
        self.dio.value(0)
        self.delay(_HALF_US)
        self.clk.value(0)
        self.delay(_HALF_US)

    def _stop(self):
        # From CLK low: DIO low, CLK rises, then DIO rises while CLK is high.
        self.dio.value(0)
        self.delay(_HALF_US)
        self.clk.value(1)
        self.delay(_HALF_US)
        self.dio.value(1)
        self.delay(_HALF_US)

    def _byte(self, data):
        for bit in range(8):
            self.dio.value((data >> bit) & 1)
            self._clock()
        self.dio.value(1)  # release DIO for the chip's ack
        self.delay(_HALF_US)
        self.clk.value(1)
        self.delay(_HALF_US)
        if self.read_ack and self.dio.value():
            self.missed_acks += 1
        self.clk.value(0)
        self.delay(_HALF_US)

    def _clock(self):
        self.delay(_HALF_US)
        self.clk.value(1)
        self.delay(_HALF_US)
        self.clk.value(0)
