# Raspberry Pi Pico (RP2040): the table controller's wiring. The only file
# that names the Pico's pins; copied to the board as /board.py.
#
#   GPIO  pin  signal                                   electrical
#   GP0    1   seat 1 bet sensor (progressive spot)     in, pull-up, low = chip present
#   GP1    2   seat 2 bet sensor                        "
#   GP2    4   seat 3 bet sensor                        "
#   GP3    5   seat 4 bet sensor                        "
#   GP4    6   seat 5 bet sensor                        "
#   GP5    7   seat 6 bet sensor                        "
#   GP6    9   seat 1 bet light                         out, high = lit, via a ULN2803A
#   GP7   10   seat 2 bet light                         "
#   GP8   11   seat 3 bet light                         "
#   GP9   12   seat 4 bet light                         "
#   GP10  14   seat 5 bet light                         "
#   GP11  15   seat 6 bet light                         "
#   GP12  16   seat 1 jackpot light                     out, high = lit, via a ULN2803A
#   GP13  17   seat 2 jackpot light                     "
#   GP14  19   seat 3 jackpot light                     "
#   GP15  20   seat 4 jackpot light                     "
#   GP20  26   seat 5 jackpot light                     "
#   GP21  27   seat 6 jackpot light                     "
#   GP22  29   LOCK button (dealer)                     in, pull-up, low = pressed
#   GP28  34   key switch (floorperson)                 in, pull-up, low = turned
#   GP16  21   SPI0 MISO: the rp2 port routes it to SPI0 even unused; leave unconnected
#   GP17  22   MAX7219 LOAD (CS)                        out, through a 74HCT125
#   GP18  24   MAX7219 CLK (SPI0 SCK)                   out, through a 74HCT125
#   GP19  25   MAX7219 DIN (SPI0 TX)                    out, through a 74HCT125
#   GP26  31   spare (I2C1 SDA)
#   GP27  32   spare (I2C1 SCL)
#
# Not wired: the UTH-spot sensors. The header has 26 GPIOs; the display takes
# 4 (SCK, TX, CS and the MISO the rp2 port claims), leaving 22 for 6 seats x 4
# signals + LOCK + key = 26. So each Seat gets
# uth=None and the progressive chip alone qualifies the seat
# (table.inputs.Seat.has_uth_wager). Adding them means an MCP23017 I2C
# expander on GP26/GP27 and a driver for it; nothing here pretends otherwise.
#
# Sensors, buttons and the key switch switch to GND (dry contact or open
# collector): no GPIO ever sees more than 3.3 V. Lamps are driven by a low-side
# driver, never straight from a GPIO. The MAX7219 runs at 5 V and wants 3.5 V
# for a logic high, hence the 74HCT125 level shifter on its three inputs.
from machine import SPI, Pin
from micropython import const

from table.hardware import Board, seats_from
from table.max7219 import Max7219
from table.pins import ActiveLow

STORAGE_ROOT = "/meter"

# GPIO numbers; the tuples are seats 1..6 in order.
_GP_BET = (0, 1, 2, 3, 4, 5)
_GP_BET_LIGHT = (6, 7, 8, 9, 10, 11)
_GP_JACKPOT_LIGHT = (12, 13, 14, 15, 20, 21)
_GP_LOCK = const(22)
_GP_KEY = const(28)
_GP_MISO = const(16)
_GP_CS = const(17)
_GP_SCK = const(18)
_GP_MOSI = const(19)

_SPI_BUS = const(0)
_SPI_HZ = const(1_000_000)  # the MAX7219 takes up to 10 MHz; slow is kind to long wires


def _sensor(gpio):
    return ActiveLow(Pin(gpio, Pin.IN, Pin.PULL_UP))


def _light(gpio):
    return Pin(gpio, Pin.OUT, value=0)


def _display():
    spi = SPI(_SPI_BUS, baudrate=_SPI_HZ, polarity=0, phase=0, sck=Pin(_GP_SCK),
              mosi=Pin(_GP_MOSI), miso=Pin(_GP_MISO))
    return Max7219(spi, Pin(_GP_CS, Pin.OUT, value=1))


def build():
    seats = seats_from([_sensor(gpio) for gpio in _GP_BET],
                       [_light(gpio) for gpio in _GP_BET_LIGHT],
                       [_light(gpio) for gpio in _GP_JACKPOT_LIGHT])
    return Board(seats, _sensor(_GP_LOCK), _sensor(_GP_KEY), _display(), STORAGE_ROOT)
