# The emulated Pico's MAX7219 decoder (uthctl/boards/max7219_model.py), against the
# chip's datasheet: register map, shutdown, display test, scan limit, Code B,
# and DIG0 as the rightmost digit. Expected segments are written here from
# the datasheet's tables (bit 7..0 = DP A B C D E F G), not from the code.
from table.max7219 import Max7219 as Driver
from table.sevenseg import render
from uthctl.boards.max7219_model import Max7219, reading

# Datasheet Table 5, Code B font, segments DP A B C D E F G.
CODE_B_3 = 0b0_1111001  # A B C D G
CODE_B_H = 0b0_0110111  # B C E F G
CODE_B_MINUS = 0b0_0000001  # G


def running_chip(digits=8):
    chip = Max7219()
    chip.write(0x0B, digits - 1)
    chip.write(0x0C, 0x01)
    return chip


def test_power_up_is_shut_down_and_blank():
    chip = Max7219()
    chip.write(0x01, 0x30)  # a digit written while shut down stays dark
    assert chip.lit() == [0] * 8 and chip.text() is None


def test_digit_one_is_the_rightmost_and_scan_limit_hides_the_rest():
    chip = running_chip()
    chip.write(0x01, 0x30)  # "1" on DIG0
    chip.write(0x08, 0x7E)  # "0" on DIG7
    assert chip.lit() == [0x7E, 0, 0, 0, 0, 0, 0, 0x30]
    chip.write(0x0B, 0x03)  # digits 0-3 only
    assert chip.lit() == [0, 0, 0, 0, 0, 0, 0, 0x30]
    assert chip.text() == "1"


def test_code_b_decode_per_digit_with_its_point():
    chip = running_chip()
    chip.write(0x09, 0b0000_0101)  # DIG0 and DIG2 decoded
    chip.write(0x01, 0x03 | 0x80)  # "3."
    chip.write(0x02, 0x37)  # raw: H's segments
    chip.write(0x03, 0x0A)  # "-"
    assert chip.lit()[-3:] == [CODE_B_MINUS, CODE_B_H, CODE_B_3 | 0x80]
    assert chip.text() == "-H3."


def test_display_test_lights_everything_even_shut_down_and_shutdown_blanks():
    chip = running_chip()
    chip.write(0x01, 0x30)
    chip.write(0x0F, 0x01)
    chip.write(0x0C, 0x00)
    assert chip.lit() == [0xFF] * 8
    chip.write(0x0F, 0x00)
    assert chip.lit() == [0] * 8  # still shut down
    chip.write(0x0C, 0x01)
    assert chip.text() == "1"  # the digit registers were kept


def test_the_firmware_driver_on_the_decoder_lights_what_sevenseg_renders():
    # The driver's frames as its SPI bus sends them, latched on CS's rising edge.
    chip = Max7219()

    class Bus:
        def write(self, frame):
            self.frame = bytes(frame)

    class ChipSelect:
        def value(self, level):
            if level == 1 and hasattr(bus, "frame"):
                chip.write(bus.frame[0], bus.frame[1])
                del bus.frame

    bus = Bus()
    driver = Driver(bus, ChipSelect())
    for text in ("no CFG", "SErvICE", "hit bY", "1000.00", "123.45"):
        driver.show(text)
        expected = bytearray(8)
        render(text, expected)
        assert chip.lit() == list(expected)
        assert reading(chip.text()) == reading(text.lstrip(" "))
