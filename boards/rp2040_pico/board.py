# Raspberry Pi Pico (RP2040): the table controller's wiring. The only file
# that names the Pico's pins; copied to the board as /board.py.
#
#   GPIO  pin  signal                                   electrical
#   GP26  31   I2C1 SDA to both MCP23017s               4.7k pull-up to 3V3
#   GP27  32   I2C1 SCL to both MCP23017s               4.7k pull-up to 3V3
#   GP22  29   LOCK button (dealer)                     in, pull-up, low = pressed
#   GP28  34   key switch (floorperson)                 in, pull-up, low = turned
#   GP16  21   SPI0 MISO: the rp2 port routes it to SPI0 even unused; leave unconnected
#   GP17  22   MAX7219 LOAD (CS)                        out, through a 74HCT125
#   GP18  24   MAX7219 CLK (SPI0 SCK)                   out, through a 74HCT125
#   GP19  25   MAX7219 DIN (SPI0 TX)                    out, through a 74HCT125
#   GP0-15, GP20, GP21: spare
#
# The seats: both betting spots, the bet light and the jackpot light of
# seven seats (28 signals) through two MCP23017 I2C port expanders at 400 kHz,
# four seats a chip (table/seat_expanders.py):
#
#   expander  address  A2 A1 A0   seats
#   U1        0x20     GND GND GND  1-4
#   U2        0x21     GND GND 3V3  5-7 (GPA3, GPA7, GPB3, GPB7 spare: unconnected)
#
#   pin (chip k, seat n = 4k+i+1)  signal                  electrical
#   GPAi  (i = 0..3)   seat n progressive spot's sensor    in, pull-up (GPPU, 100k),
#                                                          low = chip present
#   GPA4+i             seat n UTH spot's sensor            "
#   GPBi               seat n bet light                    out, high = lit, via a ULN2803A
#   GPB4+i             seat n jackpot light                "
#
# e.g. seat 3: U1 GPA2 (progressive), GPA6 (UTH), GPB2 (bet light), GPB6
# (jackpot light); seat 6: U2 GPA1, GPA5, GPB1, GPB5. Each MCP23017 runs at
# 3.3 V from the Pico's 3V3 (so SDA and SCL need no level shifter), RESET
# tied to 3V3 through 10k, INTA/INTB unconnected (the table polls), 100 nF at
# VDD. The internal 100k pull-ups suit sensors beside the board; a sensor at
# the end of a long cable wants a 10k pull-up to 3V3 beside the expander.
# An expander that does not answer is the table's fault, never an empty spot.
#
# Sensors, buttons and the key switch switch to GND (dry contact or open
# collector): no pin ever sees more than 3.3 V. Lamps are driven by a low-side
# driver, never straight from a pin. The MAX7219 runs at 5 V and wants 3.5 V
# for a logic high, hence the 74HCT125 level shifter on its three inputs.
from machine import I2C, SPI, Pin, reset
from micropython import const

from table.hardware import Board
from table.max7219 import Max7219
from table.pins import ActiveLow
from table.seat_expanders import SeatExpanders

STORAGE_ROOT = "/meter"
# The GC heap of MicroPython v1.28.0's official RPI_PICO image, gc.mem_free() +
# gc.mem_alloc() at its REPL on the emulated Pico (docs/heap.md). The host's tests,
# soaks and the virtual board run the 32-bit unix port at this heap (uthctl/heaps.py).
HEAP_BYTES = const(245_888)

_SEATS = const(7)
_EXPANDERS = (0x20, 0x21)  # I2C addresses, seats 1-4 and 5-7
_GP_LOCK = const(22)
_GP_KEY = const(28)
_GP_MISO = const(16)
_GP_CS = const(17)
_GP_SCK = const(18)
_GP_MOSI = const(19)
_GP_SDA = const(26)
_GP_SCL = const(27)

_SPI_BUS = const(0)
_SPI_HZ = const(1_000_000)  # the MAX7219 takes up to 10 MHz; slow is kind to long wires
_I2C_BUS = const(1)
_I2C_HZ = const(400_000)  # the MCP23017's fast mode: both chips read in about 0.25 ms


def _sensor(gpio):
    return ActiveLow(Pin(gpio, Pin.IN, Pin.PULL_UP))


def _display():
    spi = SPI(_SPI_BUS, baudrate=_SPI_HZ, polarity=0, phase=0, sck=Pin(_GP_SCK),
              mosi=Pin(_GP_MOSI), miso=Pin(_GP_MISO))
    return Max7219(spi, Pin(_GP_CS, Pin.OUT, value=1))


def build():
    # No bus traffic here: the controller starts the expanders and faults if one is missing.
    i2c = I2C(_I2C_BUS, scl=Pin(_GP_SCL), sda=Pin(_GP_SDA), freq=_I2C_HZ)
    io = SeatExpanders(i2c, _EXPANDERS, _SEATS)
    return Board(io.seats, _sensor(_GP_LOCK), _sensor(_GP_KEY), _display(), STORAGE_ROOT, io=io,
                 reset=reset)
