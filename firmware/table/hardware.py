# What every MicroPython board gives the controller alike: the USB serial
# link, the littlefs folder for the meter store and os.urandom. A board's
# board.py makes the pins and passes them in; it names GPIOs, this does not.
import os
import sys

from .inputs import Seat
from .program import files_program
from .serial import UsbSerial


def seats_from(bet_sensors, bet_lights, jackpot_lights, uth_sensors=None):
    # Seats 1..n from parallel lists. No UTH sensors: the board must declare
    # qualify="progressive_spot_only" (qualify.py), else the table faults.
    uth = uth_sensors or [None] * len(bet_sensors)
    return [Seat(i + 1, bet_sensors[i], uth[i], bet_lights[i], jackpot_lights[i])
            for i in range(len(bet_sensors))]


def _folder(path):
    try:
        os.mkdir(path)
    except OSError:
        pass  # already there; any worse trouble surfaces as a store fault
    return path


class Board:
    # What docs/boards.md calls the board: everything the controller is handed.
    # io: the seats' expanders (seat_expanders.py), read and written each tick;
    # None where every pin is a GPIO. qualify: see qualify.py. heap_bytes: the
    # most the GC heap can hold, where it grows on demand (ESP32); None: its size.
    # reset: the board's machine.reset, for the heap watch's restart (heap.py).
    # rtc: the board's machine.RTC class, for the host link's `clock` command.
    # program: what `authenticate` reads (program.py); by default the
    # build's files as `make deploy` copies them. reset_cause: why the board
    # started, by name (reset_cause.named), for the start's record; None: unknown.
    # door: the compartment door's switch, a pin whose value() is 1 while it
    # is open (door.py); None: none. log_segments: the log's segments (32
    # records each) sized to the board's flash (docs/mystery.md, "Collected").
    def __init__(self, seats, lock, key, display, storage_root="/meter", io=None,
                 qualify=None, heap_bytes=None, reset=None, rtc=None, program=None,
                 reset_cause=None, door=None, log_segments=8):
        self.seats = seats
        self.rtc = rtc  # machine.RTC, the calendar clock's setter (board_clock.py); None: none
        self.io = io
        self.qualify = qualify
        self.lock = lock
        self.key = key
        self.door = door
        self.display = display
        self.serial = UsbSerial(sys.stdin, sys.stdout)
        self.storage_root = _folder(storage_root)
        # The board's source: what the generator is seeded and reseeded from
        # (mystery/entropy.py); a secret only on a board not yet seeded.
        self.random_bytes = os.urandom
        self.heap_bytes = heap_bytes
        self.reset = reset
        self.program = program or files_program("/lib", "/main.py")
        self.reset_cause = reset_cause
        self.log_segments = log_segments

    def service(self):
        pass  # real pins need nothing between ticks
