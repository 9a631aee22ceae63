# ESP32-DevKitC (ESP32-WROOM-32): the table controller's wiring. The only file
# that names the board's pins; copied to the board as /board.py.
#
#   GPIO  signal                                    electrical
#   21    I2C0 SDA to both MCP23017s                4.7k pull-up to 3V3
#   22    I2C0 SCL to both MCP23017s                4.7k pull-up to 3V3
#   13    LOCK button (dealer)                      in, pull-up, low = pressed
#   14    key switch (floorperson)                  in, pull-up, low = turned
#   5     MAX7219 LOAD (CS)                         out, through a 74HCT125
#   18    MAX7219 CLK (VSPI SCK)                    out, through a 74HCT125
#   23    MAX7219 DIN (VSPI MOSI)                   out, through a 74HCT125
#   0     not used: the BOOT button; held low at reset it starts the bootloader
#   1, 3  UART0: the USB serial link through the board's USB bridge
#   6-11  the module's flash
#   2, 4, 12, 15-17, 19, 25-27, 32, 33: spare (and 34-36, 39: inputs only)
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
# 3.3 V from the board's 3V3, RESET tied to 3V3 through 10k, INTA/INTB
# unconnected (the table polls), 100 nF at VDD. A sensor at the end of a long
# cable wants a 10k pull-up to 3V3 beside the expander. An expander that does
# not answer is the table's fault, never an empty spot.
#
# Sensors switch to GND; no pin sees more than 3.3 V. The MAX7219 runs at 5 V
# and wants 3.5 V for a logic high, hence the 74HCT125 on its inputs.
from machine import I2C, SPI, Pin, reset
from micropython import const

from table.hardware import Board
from table.max7219 import Max7219
from table.pins import ActiveLow
from table.seat_expanders import SeatExpanders

STORAGE_ROOT = "/meter"
# The supported module is the ESP32-WROVER with PSRAM (MicroPython's ESP32_GENERIC
# SPIRAM image): its GC heap grows on demand into the 4 MB of PSRAM the ESP32 maps;
# HEAP_BYTES is a bound below that (ESP-IDF keeps part of it), taken from the image's
# sources, not measured (no ESP32 image builds here). An ESP32-WROOM-32 (no PSRAM;
# ESP32_GENERIC's GC heap starts at 56 KB and reaches about 112 KB) is too small for
# settlement with room to spare: the controller refuses `round` there from start-up,
# saying so in `status` (table/heap.py), and plays everything else (docs/heap.md).
MODULE = "ESP32-WROVER"
HEAP_BYTES = const(3_145_728)
WROOM_HEAP_BYTES = const(114_688)

_SEATS = const(7)
_EXPANDERS = (0x20, 0x21)  # I2C addresses, seats 1-4 and 5-7
_GP_LOCK = const(13)
_GP_KEY = const(14)
_GP_CS = const(5)
_GP_SCK = const(18)
_GP_MOSI = const(23)
_GP_SDA = const(21)
_GP_SCL = const(22)

_VSPI = const(2)
_SPI_HZ = const(1_000_000)  # the MAX7219 takes up to 10 MHz; slow is kind to long wires
_I2C_BUS = const(0)
_I2C_HZ = const(400_000)  # the MCP23017's fast mode


def _sensor(gpio):
    return ActiveLow(Pin(gpio, Pin.IN, Pin.PULL_UP))


def _display():
    spi = SPI(_VSPI, baudrate=_SPI_HZ, polarity=0, phase=0, sck=Pin(_GP_SCK),
              mosi=Pin(_GP_MOSI), miso=None)
    return Max7219(spi, Pin(_GP_CS, Pin.OUT, value=1))


def _heap_bytes():
    # The GC heap grows on demand into the ESP-IDF heap (PSRAM on a WROVER): what
    # it holds now and what the IDF heap has free are the most it can reach.
    import gc

    import esp32

    free = sum(region[1] for region in esp32.idf_heap_info(esp32.HEAP_DATA))
    return gc.mem_free() + gc.mem_alloc() + free


def build():
    # No bus traffic here: the controller starts the expanders and faults if one is missing.
    i2c = I2C(_I2C_BUS, scl=Pin(_GP_SCL), sda=Pin(_GP_SDA), freq=_I2C_HZ)
    io = SeatExpanders(i2c, _EXPANDERS, _SEATS)
    return Board(io.seats, _sensor(_GP_LOCK), _sensor(_GP_KEY), _display(), STORAGE_ROOT, io=io,
                 heap_bytes=_heap_bytes(), reset=reset)
