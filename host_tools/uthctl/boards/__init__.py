# Boards the host runs itself, with a real board's face (a serial port and a
# rig port): the virtual board (the firmware on the unix-port MicroPython) and
# the emulated Pico (the rp2 image on an emulated RP2040).
