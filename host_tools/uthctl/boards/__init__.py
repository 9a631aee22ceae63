# Boards the host runs itself, with a real board's face (a serial port and a
# rig port): the virtual board (the firmware on the unix-port MicroPython) and
# the emulated Pico (the rp2 image on an emulated RP2040).
from pathlib import Path

# The checkout these boards run from: its firmware, boards/ and the emulator.
REPO = Path(__file__).resolve().parents[3]
