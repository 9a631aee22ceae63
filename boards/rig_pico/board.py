# The test rig: a second Raspberry Pi Pico wired to the controller's Pico
# (boards/rp2040_pico/board.py). The only file that names the rig's pins;
# copied to the rig as /lib/board.mpy. Each rig GPIO has the controller GPIO
# of the same number, so the wires run straight across (README, The rig Pico).
#
#   rig   pin  controller signal       controller  through
#   GP0    1   seat 1 bet sensor       GP0  pin 1  NPN (2N3904), 10k base, 100k base-GND
#   GP1    2   seat 2 bet sensor       GP1  pin 2  "
#   GP2    4   seat 3 bet sensor       GP2  pin 4  "
#   GP3    5   seat 4 bet sensor       GP3  pin 5  "
#   GP4    6   seat 5 bet sensor       GP4  pin 6  "
#   GP5    7   seat 6 bet sensor       GP5  pin 7  "
#   GP22  29   LOCK button             GP22 pin 29 "
#   GP28  34   key switch              GP28 pin 34 "
#   GP16  21   RUN (reset)             RUN  pin 30 "
#   GP17  22   power: load switch EN   VSYS pin 39 high-side load switch, 100k EN-GND
#   GP6    9   seat 1 bet light        GP6  pin 9  1k series; rig input, pull-down
#   GP7   10   seat 2 bet light        GP7  pin 10 "
#   GP8   11   seat 3 bet light        GP8  pin 11 "
#   GP9   12   seat 4 bet light        GP9  pin 12 "
#   GP10  14   seat 5 bet light        GP10 pin 14 "
#   GP11  15   seat 6 bet light        GP11 pin 15 "
#   GP12  16   seat 1 jackpot light    GP12 pin 16 "
#   GP13  17   seat 2 jackpot light    GP13 pin 17 "
#   GP14  19   seat 3 jackpot light    GP14 pin 19 "
#   GP15  20   seat 4 jackpot light    GP15 pin 20 "
#   GP20  26   seat 5 jackpot light    GP20 pin 26 "
#   GP21  27   seat 6 jackpot light    GP21 pin 27 "
#   GND   3    ground                  GND  pin 3  a wire: one ground for both boards
#
# A rig GPIO high turns its NPN on, whose collector pulls the controller's
# input to ground: chip present, LOCK pressed, key turned, as an open-collector
# sensor does; low leaves the input to the controller's pull-up. The 100k
# base-to-ground keeps every transistor off while the rig boots. The lights
# are read on the controller's GPIO side of its ULN2803A (3.3 V logic, high =
# lit) through 1k, into rig inputs with their pull-down, so an open wire or a
# controller switched off reads unlit. The load switch feeds the controller's
# VSYS; it cuts the power only if the controller's USB cable does not also
# feed it (its VBUS wire broken), else `power off` changes nothing.
from machine import Pin
from micropython import const
from rig_protocol import INPUTS, RigPins

# The controller's inputs, in rig_protocol.INPUTS' order: bet1..6, lock, key.
_GP_DRIVE = (0, 1, 2, 3, 4, 5, 22, 28)
_GP_BET_LIGHT = (6, 7, 8, 9, 10, 11)
_GP_JACKPOT_LIGHT = (12, 13, 14, 15, 20, 21)
_GP_RUN = const(16)
_GP_POWER = const(17)


def _drive(gpio):
    return Pin(gpio, Pin.OUT, value=0)


def _light(gpio):
    return Pin(gpio, Pin.IN, Pin.PULL_DOWN)


def build(sleep_ms):
    drives = {INPUTS[n]: _drive(gpio) for n, gpio in enumerate(_GP_DRIVE)}
    return RigPins(drives, [_light(gpio) for gpio in _GP_BET_LIGHT],
                   [_light(gpio) for gpio in _GP_JACKPOT_LIGHT], sleep_ms,
                   run=_drive(_GP_RUN), power=Pin(_GP_POWER, Pin.OUT, value=1))
