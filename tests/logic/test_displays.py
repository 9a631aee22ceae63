# The LED meter drivers checked against the chips' protocols: MAX7219 register
# frames from a recording SPI bus, TM1637 bytes decoded from the recorded
# CLK/DIO waveform by a decoder of its own. Segment patterns are typed in from
# the standard seven-segment map, not read from table.sevenseg.
import sys

import fakes
from mystery.money import cents_text
from table import meter_text, sevenseg
from table.max7219 import Max7219
from table.tm1637 import Tm1637

# MAX7219 no-decode order: bit 7..0 = DP A B C D E F G.
MAX = {"0": 0x7E, "1": 0x30, "2": 0x6D, "3": 0x79, "4": 0x33, "5": 0x5B, "6": 0x5F,
       "7": 0x70, "8": 0x7F, "9": 0x7B, " ": 0x00, "b": 0x1F, "Y": 0x3B, "F": 0x47,
       "A": 0x77, "U": 0x3E, "L": 0x0E, "t": 0x0F, "-": 0x01, "h": 0x17, "i": 0x04}
# TM1637 order: bit 0..6 = A..G, bit 7 = DP.
TM = {"0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D, "6": 0x7D,
      "7": 0x07, "8": 0x7F, "9": 0x6F, " ": 0x00, "b": 0x7C, "Y": 0x6E, "F": 0x71,
      "A": 0x77, "U": 0x3E, "L": 0x38, "t": 0x78, "-": 0x40, "h": 0x74, "i": 0x10}
P = 0x80  # the decimal point, bit 7 in both orders


def _raises(call, *args, **kw):
    try:
        call(*args, **kw)
    except ValueError:
        return True
    return False


# ---- the font and layout ----

def _rendered(text, digits):
    out = bytearray(digits)
    sevenseg.render(text, out)
    return list(out)


def test_render_right_aligns_and_puts_each_point_on_the_digit_before_it():
    m = MAX
    cases = (
        ("123.45", 8, [0, 0, 0, m["1"], m["2"], m["3"] | P, m["4"], m["5"]]),
        ("bY 200.00", 8, [m["b"], m["Y"], 0, m["2"], m["0"], m["0"] | P, m["0"], m["0"]]),
        ("FAULt", 8, [0, 0, 0, m["F"], m["A"], m["U"], m["L"], m["t"]]),
        ("hit bY", 8, [0, 0, m["h"], m["i"], m["t"], 0, m["b"], m["Y"]]),
        ("1000.00", 8, [0, 0, m["1"], m["0"], m["0"], m["0"] | P, m["0"], m["0"]]),
        (".5", 4, [0, 0, P, m["5"]]),  # a point with nothing before it stands alone
        ("1..2", 4, [0, m["1"] | P, P, m["2"]]),
        # 9 positions on 8 digits: the label loses its first letter.
        ("bY 1000.00", 8, [m["Y"], 0, m["1"], m["0"], m["0"], m["0"] | P, m["0"], m["0"]]),
    )
    for text, digits, expected in cases:
        assert _rendered(text, digits) == expected, text


def test_render_never_cuts_an_amount_and_refuses_unknown_characters():
    for text, digits in (("123456789", 8), ("1234.56", 4), ("bY 20000.00", 6), ("12?4", 8),
                         ("MW", 8), ("\u00e9", 8)):
        assert _raises(_rendered, text, digits), text


def test_every_meter_text_renders_on_eight_and_six_digits():
    for text in (meter_text.SERVICE, meter_text.FAULT, meter_text.UNCONFIGURED,
                 cents_text(0), meter_text.HIT_BY, cents_text(1000_00)):
        _rendered(text, 8)
        _rendered(text, 6)
    _rendered(cents_text(999_999_99), 8)  # $999,999.99 on the MAX7219
    _rendered(cents_text(9_999_99), 6)  # $9,999.99 on a 6-digit TM1637


def test_tm1637_order_reverses_the_segments_and_keeps_the_point():
    for ch in MAX:
        assert sevenseg.tm1637_order(MAX[ch]) == TM[ch], ch
        assert sevenseg.tm1637_order(MAX[ch] | P) == TM[ch] | P, ch


# ---- MAX7219 over SPI ----

class Wire:
    # Stands in for the SPI bus (write) or the CS pin (value): both land in
    # one shared log, so the order of CS edges and writes is kept.
    def __init__(self, log, name):
        self.log = log
        self.name = name

    def write(self, data):
        self.log.append((self.name, bytes(data)))

    def value(self, level=None):
        assert level is not None, "the driver never reads CS"
        self.log.append((self.name, level))


def _frames(log):
    # Checks the CS framing (high at rest, low around exactly one 2-byte
    # write) and returns the (register, data) pairs in order.
    assert log[0] == ("cs", 1)
    frames = []
    for i in range(1, len(log), 3):
        assert log[i] == ("cs", 0) and log[i + 2] == ("cs", 1), log[i:i + 3]
        name, data = log[i + 1]
        assert name == "spi" and len(data) == 2
        frames.append((data[0], data[1]))
    return frames


def _max7219(**kw):
    log = []
    return Max7219(Wire(log, "spi"), Wire(log, "cs"), **kw), log


def test_max7219_init_sequence():
    display, log = _max7219()
    assert _frames(log) == [(0x0F, 0), (0x09, 0), (0x0B, 7), (0x0A, 8)] + [
        (register, 0) for register in range(1, 9)] + [(0x0C, 1)]
    display, log = _max7219(digits=6, intensity=15)
    assert _frames(log)[2:4] == [(0x0B, 5), (0x0A, 15)]


def test_max7219_writes_digit_registers_one_to_eight_rightmost_first():
    display, log = _max7219()
    for text, digits in (("123.45", [0x5B, 0x33, 0x79 | P, 0x6D, 0x30, 0, 0, 0]),
                         ("bY 200.00", [0x7E, 0x7E, 0x7E | P, 0x7E, 0x6D, 0, 0x3B, 0x1F])):
        log[:] = [("cs", 1)]
        display.show(text)
        assert _frames(log) == [(r + 1, digits[r]) for r in range(8)], text


def test_max7219_refuses_bad_text_and_settings_without_touching_the_chip():
    display, log = _max7219()
    log[:] = []
    assert _raises(display.show, "123456789") and _raises(display.show, "1?")
    assert log == []
    for kw in ({"digits": 0}, {"digits": 9}, {"intensity": 16}):
        assert _raises(_max7219, **kw), kw


class QuietSpi:
    # Records without allocating, so show() can run under a locked heap.
    def __init__(self):
        self.writes = 0
        self.last = bytearray(2)

    def write(self, data):
        self.last[0] = data[0]
        self.last[1] = data[1]
        self.writes += 1


def test_max7219_show_allocates_nothing_on_micropython():
    if sys.implementation.name != "micropython":
        return
    import micropython

    spi = QuietSpi()
    display = Max7219(spi, fakes.Pin(1))
    texts = ("123.45", "hit bY", "1000.00", "bY 1000.00", "SErvICE", "FAULt", "no CFG", "0.00")
    micropython.heap_lock()
    try:
        for text in texts:
            display.show(text)
    finally:
        micropython.heap_unlock()
    assert spi.writes == 13 + 8 * len(texts)
    assert (spi.last[0], spi.last[1]) == (8, 0)  # "0.00": the leftmost digit blank


# ---- TM1637 over two bit-banged wires ----

class Bus:
    # CLK and DIO with pull-ups, and a TM1637 on them that pulls DIO low from
    # the falling edge after the 8th bit to the falling edge after the 9th.
    # Records the line levels (clk, dio) at every change.
    def __init__(self, chip=True):
        self.chip = chip
        self.clk = self.host_dio = 1
        self.acking = False
        self.rises = 0
        self.trace = [(1, 1)]

    def dio(self):
        return 0 if self.host_dio == 0 or self.acking else 1

    def drive(self, is_clk, level):
        level = 1 if level else 0
        if is_clk:
            self._clock(level)
        else:
            if self.clk and self.dio() and not level:
                self.rises = 0  # a start condition
            self.host_dio = level
        if (self.clk, self.dio()) != self.trace[-1]:
            self.trace.append((self.clk, self.dio()))

    def _clock(self, level):
        if level and not self.clk:
            self.rises += 1
        if self.chip and self.clk and not level and self.rises in (8, 9):
            self.acking = self.rises == 8
            self.rises %= 9
        self.clk = level


class BusPin:
    def __init__(self, bus, is_clk):
        self.bus = bus
        self.is_clk = is_clk

    def value(self, level=None):
        if level is None:
            return self.bus.clk if self.is_clk else self.bus.dio()
        self.bus.drive(self.is_clk, level)


def decode(trace):
    # Transactions between start and stop, each a list of (byte, acked):
    # DIO sampled at every CLK rising edge, 8 bits LSB first then the ack.
    transactions = []
    bits = None
    for i in range(1, len(trace)):
        (clk0, dio0), (clk1, dio1) = trace[i - 1], trace[i]
        if clk0 and clk1 and dio0 and not dio1:
            assert bits is None, "start inside a transaction"
            bits, current = [], []
        elif clk0 and clk1 and not dio0 and dio1:
            # The stop's own CLK rise sampled DIO low; no byte was under way.
            assert bits == [0], "stop inside a byte"
            transactions.append(current)
            bits = None
        elif not clk0 and clk1:
            assert bits is not None, "clock outside a transaction"
            bits.append(dio1)
            if len(bits) == 9:
                current.append((sum(bits[n] << n for n in range(8)), bits[8] == 0))
                bits = []
    assert bits is None, "no stop at the end"
    return transactions


def _tm1637(digits=6, chip=True, **kw):
    bus = Bus(chip)
    display = Tm1637(BusPin(bus, True), BusPin(bus, False), digits=digits,
                     delay_us=lambda us: None, **kw)
    return display, bus


def _acked(*data):
    return [(byte, True) for byte in data]


def test_tm1637_sends_data_command_address_digits_and_display_control():
    display, bus = _tm1637()
    assert display.show("123.45") is True
    assert decode(bus.trace) == [
        _acked(0x40),
        _acked(0xC0, 0x00, TM["1"], TM["2"], TM["3"] | P, TM["4"], TM["5"]),
        _acked(0x88 | 7),
    ]
    assert bus.trace[-1] == (1, 1)  # both lines released at rest
    display, bus = _tm1637(brightness=2)
    display.show("bY 200.00")  # the rightmost six: the label goes
    assert decode(bus.trace)[1:] == [
        _acked(0xC0, 0x00, TM["2"], TM["0"], TM["0"] | P, TM["0"], TM["0"]), _acked(0x8A)]


def test_tm1637_four_digits_and_a_module_wired_out_of_order():
    display, bus = _tm1637(digits=4)
    display.show("12.34")
    assert decode(bus.trace)[1] == _acked(0xC0, TM["1"], TM["2"] | P, TM["3"], TM["4"])
    display, bus = _tm1637(addresses=b"\x02\x01\x00\x05\x04\x03")
    display.show("123456")
    assert decode(bus.trace)[1] == _acked(0xC0, TM["3"], TM["2"], TM["1"], TM["6"], TM["5"],
                                          TM["4"])


def test_tm1637_counts_missing_acks_instead_of_raising():
    display, bus = _tm1637(chip=False)
    assert display.show("1.00") is False
    assert display.missed_acks == 9  # 0x40, 0xC0, six digits, 0x8F
    assert [ack for transaction in decode(bus.trace) for _, ack in transaction] == [False] * 9
    display, bus = _tm1637(chip=False, read_ack=False)
    assert display.show("1.00") is True and display.missed_acks == 0


def test_tm1637_refuses_bad_text_and_settings_without_sending():
    display, bus = _tm1637(digits=4)
    before = len(bus.trace)
    assert _raises(display.show, "123.45")  # six digits on four
    assert len(bus.trace) == before
    for kw in ({"digits": 5}, {"brightness": 8}, {"addresses": b"\x00\x00\x01\x02\x03\x04"}):
        assert _raises(_tm1637, **kw), kw
