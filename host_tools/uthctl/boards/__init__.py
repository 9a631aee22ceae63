# Boards the host runs itself, with a real board's face (a serial port and a
# rig port): the virtual board (the firmware on the unix-port MicroPython) and
# the emulated Pico (the rp2 image on an emulated RP2040).
# The checkout these boards run from: its firmware, boards/ and the emulator.
from ..checkout import REPO  # noqa: F401 -- boards.REPO, as the boards' modules name it
