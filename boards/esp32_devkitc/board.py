# ESP32-DevKitC (ESP32-WROOM-32): the table controller's wiring. The only file
# that names the board's pins; copied to the board as /board.py.
#
#   GPIO  signal                                    electrical
#   36    seat 1 bet sensor (progressive spot)      in, external 10k pull-up, low = chip present
#   39    seat 2 bet sensor                         "
#   34    seat 3 bet sensor                         "
#   35    seat 4 bet sensor                         "
#   32    seat 5 bet sensor                         in, pull-up, low = chip present
#   33    seat 6 bet sensor                         "
#   2     seat 1 bet light                          out, high = lit, via a ULN2803A
#   4     seat 2 bet light                          "
#   12    seat 3 bet light                          "
#   15    seat 4 bet light                          "
#   16    seat 5 bet light                          "
#   17    seat 6 bet light                          "
#   19    seat 1 jackpot light                      out, high = lit, via a ULN2803A
#   21    seat 2 jackpot light                      "
#   22    seat 3 jackpot light                      "
#   25    seat 4 jackpot light                      "
#   26    seat 5 jackpot light                      "
#   27    seat 6 jackpot light                      "
#   13    LOCK button (dealer)                      in, pull-up, low = pressed
#   14    key switch (floorperson)                  in, pull-up, low = turned
#   5     MAX7219 LOAD (CS)                         out, through a 74HCT125
#   18    MAX7219 CLK (VSPI SCK)                    out, through a 74HCT125
#   23    MAX7219 DIN (VSPI MOSI)                   out, through a 74HCT125
#   0     not used: the BOOT button; held low at reset it starts the bootloader
#   1, 3  UART0: the USB serial link through the board's USB bridge
#   6-11  the module's flash
#
# Not wired: the UTH-spot sensors. Of the 21 GPIOs left free by the flash,
# UART0 and the display (VSPI's MISO is not routed: miso=None), GPIO0 is unfit,
# leaving 20 for 6 seats x 4 signals + LOCK + key = 26. So each Seat gets
# uth=None and the progressive chip alone qualifies the seat
# (table.inputs.Seat.has_uth_wager). Adding them means an I2C I/O expander and
# a driver for it.
#
# GPIO34-39 are inputs only and have no pull resistors: their sensors need the
# external 10k pull-ups to 3V3. The bet lights sit on the strapping pins 2, 12
# and 15, which a ULN2803A's input holds low at reset, as the ESP32 wants (12
# must be low for 3.3 V flash; 15 low only silences the boot ROM's log); a bet
# light may flicker at reset, a jackpot light never. GPIO16/17 are free on
# WROOM modules only (on WROVER modules they are the PSRAM's).
# Sensors switch to GND; no GPIO sees more than 3.3 V. The MAX7219 runs at 5 V
# and wants 3.5 V for a logic high, hence the 74HCT125 on its inputs.
from machine import SPI, Pin
from micropython import const

from table.hardware import Board, seats_from
from table.max7219 import Max7219
from table.pins import ActiveLow

STORAGE_ROOT = "/meter"

# GPIO numbers; the tuples are seats 1..6 in order.
_GP_BET = (36, 39, 34, 35, 32, 33)
_GP_BET_LIGHT = (2, 4, 12, 15, 16, 17)
_GP_JACKPOT_LIGHT = (19, 21, 22, 25, 26, 27)
_GP_LOCK = const(13)
_GP_KEY = const(14)
_GP_CS = const(5)
_GP_SCK = const(18)
_GP_MOSI = const(23)
_GP_INPUT_ONLY = (34, 35, 36, 39)  # no internal pull resistors

_VSPI = const(2)
_SPI_HZ = const(1_000_000)  # the MAX7219 takes up to 10 MHz; slow is kind to long wires


def _sensor(gpio):
    pull = None if gpio in _GP_INPUT_ONLY else Pin.PULL_UP
    return ActiveLow(Pin(gpio, Pin.IN, pull))


def _light(gpio):
    return Pin(gpio, Pin.OUT, value=0)


def _display():
    spi = SPI(_VSPI, baudrate=_SPI_HZ, polarity=0, phase=0, sck=Pin(_GP_SCK),
              mosi=Pin(_GP_MOSI), miso=None)
    return Max7219(spi, Pin(_GP_CS, Pin.OUT, value=1))


def build():
    seats = seats_from([_sensor(gpio) for gpio in _GP_BET],
                       [_light(gpio) for gpio in _GP_BET_LIGHT],
                       [_light(gpio) for gpio in _GP_JACKPOT_LIGHT])
    return Board(seats, _sensor(_GP_LOCK), _sensor(_GP_KEY), _display(), STORAGE_ROOT)
