# ESP32-DevKitC: the table controller's board, copied to it as /board.py. It
# is the only file that names the board's pins; their wiring and its
# electrical rules are in docs/boards.md, "The boards' wiring".
import machine
from machine import I2C, RTC, SPI, Pin, reset
from micropython import const

from table.door import expander_input
from table.hardware import Board
from table.max7219 import Max7219
from table.pins import ActiveLow, ShutWhenLow
from table.reset_cause import named
from table.seat_expanders import SeatExpanders

STORAGE_ROOT = "/meter"
# The log's segments of 32 records: about 15 KB each with the record key, 64
# of them 960 KB of a 4 MB chip's 2 MB vfs, their names 2 KB of the WROOM's
# heap (docs/mystery.md, "Collected").
LOG_SEGMENTS = const(64)
# The supported module is the ESP32-WROVER with PSRAM. HEAP_BYTES bounds its GC
# heap (from the SPIRAM image's sources; under QEMU that image panics in its first
# collection, docs/heap.md). WROOM_HEAP_BYTES is an ESP32-WROOM-32's GC heap as
# measured: gc.mem_free() + gc.mem_alloc() at the REPL of MicroPython v1.28.0's
# official ESP32_GENERIC image on the emulated ESP32, 3 December 2026 (the ESP-IDF
# heap had 138,728 bytes free beside it, the GC heap's to grow into). That is
# room for settlement with the reserve the Pico keeps, so a WROOM settles too
# (docs/heap.md, "The ESP32-WROOM-32: settlement on its measured heap").
MODULE = "ESP32-WROVER"
HEAP_BYTES = const(3_145_728)
WROOM_HEAP_BYTES = const(166_592)

_SEATS = const(7)
_EXPANDERS = (0x20, 0x21)  # I2C addresses, seats 1-4 and 5-7
# The controller compartment's door switch: U2's spare GPA3, closed by the
# shut door to ground, so the pin reads open when the door or its wire is
# (table/door.py; docs/boards.md, "The door").
_DOOR = (0x21, 3)
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
    # Unsensed: the MAX7219 is written and never read (its DOUT is not wired
    # back), so a dead chip or a cut wire goes unnoticed, and so do the lamps,
    # driven through the ULN2803A with nothing reading them back. What it takes
    # to sense them: docs/boards.md, "What the controller senses".
    spi = SPI(_VSPI, baudrate=_SPI_HZ, polarity=0, phase=0, sck=Pin(_GP_SCK),
              mosi=Pin(_GP_MOSI), miso=None)
    return Max7219(spi, Pin(_GP_CS, Pin.OUT, value=1))


def _heap_bytes():
    # The GC heap grows on demand into the ESP-IDF heap (PSRAM on a WROVER): what
    # it holds now and what the IDF heap has free are the most it can reach.
    # The port's gc.mem_free() already counts the IDF heap's largest free block
    # (py/modgc.c, MICROPY_GC_SPLIT_HEAP_AUTO), which the IDF's free bytes count
    # again: taken off once (docs/heap.md, "The WROOM's ceiling").
    import gc

    import esp32

    regions = esp32.idf_heap_info(esp32.HEAP_DATA)
    free = sum(region[1] for region in regions)
    largest = max((region[2] for region in regions), default=0)
    return gc.mem_free() - largest + gc.mem_alloc() + free


def build():
    # No bus traffic here: the controller starts the expanders and faults if one is missing.
    i2c = I2C(_I2C_BUS, scl=Pin(_GP_SCL), sda=Pin(_GP_SDA), freq=_I2C_HZ)
    io = SeatExpanders(i2c, _EXPANDERS, _SEATS)
    door = ShutWhenLow(expander_input(io, *_DOOR))
    return Board(io.seats, _sensor(_GP_LOCK), _sensor(_GP_KEY), _display(), STORAGE_ROOT, io=io,
                 heap_bytes=_heap_bytes(), reset=reset, rtc=RTC, reset_cause=named(machine),
                 door=door, log_segments=LOG_SEGMENTS)
