# The test rig: a second Raspberry Pi Pico wired to the controller's Pico
# (boards/rp2040_pico/board.py). The only file that names the rig's pins;
# copied to the rig as /lib/board.mpy. The controller's seats are on its two
# MCP23017s (U1 0x20: seats 1-4, U2 0x21: seats 5-7); the rig reaches the
# progressive spots and lights of seats 1-6, LOCK and the key (README, The rig
# Pico).
#
#   rig   pin  controller signal       controller  through
#   GP0    1   seat 1 progressive spot U1 GPA0     NPN (2N3904), 10k base, 100k base-GND
#   GP1    2   seat 2 progressive spot U1 GPA1     "
#   GP2    4   seat 3 progressive spot U1 GPA2     "
#   GP3    5   seat 4 progressive spot U1 GPA3     "
#   GP4    6   seat 5 progressive spot U2 GPA0     "
#   GP5    7   seat 6 progressive spot U2 GPA1     "
#   GP22  29   LOCK button             GP22 pin 29 "
#   GP28  34   key switch              GP28 pin 34 "
#   GP16  21   RUN (reset)             RUN  pin 30 "
#   GP17  22   power: load switch EN   VSYS pin 39 high-side load switch, 100k EN-GND
#   GP6    9   seat 1 bet light        U1 GPB0     1k series; rig input, pull-down
#   GP7   10   seat 2 bet light        U1 GPB1     "
#   GP8   11   seat 3 bet light        U1 GPB2     "
#   GP9   12   seat 4 bet light        U1 GPB3     "
#   GP10  14   seat 5 bet light        U2 GPB0     "
#   GP11  15   seat 6 bet light        U2 GPB1     "
#   GP12  16   seat 1 jackpot light    U1 GPB4     "
#   GP13  17   seat 2 jackpot light    U1 GPB5     "
#   GP14  19   seat 3 jackpot light    U1 GPB6     "
#   GP15  20   seat 4 jackpot light    U1 GPB7     "
#   GP20  26   seat 5 jackpot light    U2 GPB4     "
#   GP21  27   seat 6 jackpot light    U2 GPB5     "
#   --         seats 1-6 UTH spots     U1 GPA4-7, U2 GPA4-5   a wire to GND each: UTH chips
#                                                          always placed
#   GND   3    ground                  GND  pin 3  a wire: one ground for both boards
#
# Not reached: the UTH spots (held "chip placed"; the rig cannot lift them)
# and seat 7. The rig's 26 GPIOs would carry the 16 drives of seven seats'
# two spots, LOCK and the key plus RUN and power, but not the 14 lights as
# well: that wants an I2C expander of the rig's own for the lights. Until
# then, a test that needs a lifted UTH chip or seat 7 runs on the virtual
# board or the emulated Pico through their rig ports.
#
# A rig GPIO high turns its NPN on, whose collector pulls the controller's
# input to ground: chip present, LOCK pressed, key turned, as an open-collector
# sensor does; low leaves the input to the controller's pull-up. The 100k
# base-to-ground keeps every transistor off while the rig boots. The lights
# are read on the expanders' side of the controller's ULN2803A (3.3 V logic,
# high = lit) through 1k, into rig inputs with their pull-down, so an open wire or a
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
