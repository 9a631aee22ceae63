# Raspberry Pi Pico (RP2040): the table controller's board, copied to it as
# /board.py. It is the only file that names the Pico's pins; their wiring and
# its electrical rules are in docs/boards.md, "The boards' wiring".
import os

import machine
from machine import I2C, RTC, SPI, Pin, reset
from micropython import const

from table import app
from table.door import expander_input
from table.flash_image import FLASH_START, image_length
from table.hardware import Board
from table.max7219 import Max7219
from table.pins import ActiveLow, ShutWhenLow
from table.program import files_program, image_pieces
from table.reset_cause import named
from table.seat_expanders import SeatExpanders

STORAGE_ROOT = "/meter"
# The log's segments of 32 records: about 15 KB each with the record key, 40
# of them 600 KB of the 1,408 KB littlefs (docs/mystery.md, "Collected").
LOG_SEGMENTS = const(40)
# The GC heap of the official RPI_PICO image, at which the host's tests, soaks and
# virtual board run the 32-bit unix port (docs/heap.md, "Each board's heap, named once").
HEAP_BYTES = const(245_888)

_SEATS = const(7)
_EXPANDERS = (0x20, 0x21)  # I2C addresses, seats 1-4 and 5-7
# The controller compartment's door switch: U2's spare GPA3, closed by the
# shut door to ground, so the pin reads open when the door or its wire is
# (table/door.py; docs/boards.md, "The door").
_DOOR = (0x21, 3)
_GP_LOCK = const(22)
_GP_KEY = const(28)
_GP_MISO = const(16)  # unconnected: the rp2 port takes a MISO pin for SPI0 even unused
_GP_CS = const(17)
_GP_SCK = const(18)
_GP_MOSI = const(19)
_GP_SDA = const(26)
_GP_SCL = const(27)

_SPI_BUS = const(0)
_SPI_HZ = const(1_000_000)  # the MAX7219 takes up to 10 MHz; slow is kind to long wires
_I2C_BUS = const(1)
_I2C_HZ = const(400_000)  # the MCP23017's fast mode (its cost a tick: docs/boards.md)


def _sensor(gpio):
    return ActiveLow(Pin(gpio, Pin.IN, Pin.PULL_UP))


def _display():
    # Unsensed: the MAX7219 is written and never read (its DOUT is not wired
    # back), so a dead chip or a cut wire goes unnoticed, and so do the lamps,
    # driven through the ULN2803A with nothing reading them back. What it takes
    # to sense them: docs/boards.md, "What the controller senses".
    spi = SPI(_SPI_BUS, baudrate=_SPI_HZ, polarity=0, phase=0, sck=Pin(_GP_SCK),
              mosi=Pin(_GP_MOSI), miso=Pin(_GP_MISO))
    return Max7219(spi, Pin(_GP_CS, Pin.OUT, value=1))


def _frozen(module):
    # A frozen module's __file__ ("table/app.py") names no file on the filesystem.
    try:
        os.stat(module.__file__)
        return False
    except OSError:
        return True


def _word(address):
    return machine.mem32[address] & 0xFFFFFFFF


def _program():
    # What `authenticate` reads, looked at when asked: with the controller
    # frozen into the image, the image in flash; deployed as .mpy, those files.
    length = image_length(_word)
    if length is None or not _frozen(app):
        return files_program("/lib", "/main.py")()
    return "image", image_pieces(FLASH_START, length)


def build():
    # No bus traffic here: the controller starts the expanders and faults if one is missing.
    i2c = I2C(_I2C_BUS, scl=Pin(_GP_SCL), sda=Pin(_GP_SDA), freq=_I2C_HZ)
    io = SeatExpanders(i2c, _EXPANDERS, _SEATS)
    door = ShutWhenLow(expander_input(io, *_DOOR))
    return Board(io.seats, _sensor(_GP_LOCK), _sensor(_GP_KEY), _display(), STORAGE_ROOT, io=io,
                 reset=reset, rtc=RTC, program=_program, reset_cause=named(machine),
                 door=door, log_segments=LOG_SEGMENTS)
