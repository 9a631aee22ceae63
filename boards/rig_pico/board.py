# The test rig: a second Raspberry Pi Pico wired to the controller's Pico
# (boards/rp2040_pico/board.py). The only file that names the rig's pins;
# copied to the rig as /lib/board.mpy. The controller's seats are on its two
# MCP23017s (U1 0x20: seats 1-4, U2 0x21: seats 5-7); the rig reaches both
# spots and both lights of all seven seats, LOCK, the key, RUN and power:
# seats 1-6's progressive spots and lights on its GPIOs, the seven UTH spots
# and seat 7 on an MCP23017 of its own (U3, README: The rig Pico).
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
#   GP18  24   U3 SDA (pin 13)         --          the rig's I2C1, 4.7k pull-up to 3V3
#   GP19  25   U3 SCL (pin 12)         --          "
#   U3 GPA0    seat 1 UTH spot         U1 GPA4     NPN (2N3904), 10k base, 100k base-GND
#   U3 GPA1    seat 2 UTH spot         U1 GPA5     "
#   U3 GPA2    seat 3 UTH spot         U1 GPA6     "
#   U3 GPA3    seat 4 UTH spot         U1 GPA7     "
#   U3 GPA4    seat 5 UTH spot         U2 GPA4     "
#   U3 GPA5    seat 6 UTH spot         U2 GPA5     "
#   U3 GPA6    seat 7 UTH spot         U2 GPA6     "
#   U3 GPA7    seat 7 progressive spot U2 GPA2     "
#   U3 GPB0    seat 7 bet light        U2 GPB2     1k series, 10k pull-down to GND
#   U3 GPB1    seat 7 jackpot light    U2 GPB6     "
#   U3 GPB2-7  not wired               --          the chip's own pull-ups (no floating input)
#   U3 A0-A2   pins 15-17 to 3V3: address 0x27 (clear of the controller's 0x20, 0x21
#              should the two buses ever be joined); RESET (pin 18) 10k to 3V3;
#              VDD (pin 9) 3V3 pin 36, VSS (pin 10) GND; INTA/INTB not wired
#   GND   3    ground                  GND  pin 3  a wire: one ground for both boards
#
# U3 powers up with every pin an input, so the 100k base-to-ground keeps its
# transistors off until the rig sets port A as outputs (rig_expander.py); it
# has pull-ups only, so seat 7's lights have 10k pull-downs of their own and
# read unlit on an open wire, as the GPIOs' do. A U3 that does not answer is
# an error in the rig's reply to every request that needs it.
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
from machine import I2C, Pin
from micropython import const
from rig_expander import Drive, Light, RigExpander
from rig_protocol import RigPins

# The controller's inputs on rig GPIOs and on U3's port A bits, by name.
_GP_DRIVE = (("bet1", 0), ("bet2", 1), ("bet3", 2), ("bet4", 3), ("bet5", 4), ("bet6", 5),
             ("lock", 22), ("key", 28))
_X_DRIVE = (("uth1", 0), ("uth2", 1), ("uth3", 2), ("uth4", 3), ("uth5", 4), ("uth6", 5),
            ("uth7", 6), ("bet7", 7))
_GP_BET_LIGHT = (6, 7, 8, 9, 10, 11)  # seats 1-6
_GP_JACKPOT_LIGHT = (12, 13, 14, 15, 20, 21)
_X_BET_LIGHT = (0,)  # U3 port B bits: seat 7
_X_JACKPOT_LIGHT = (1,)
_GP_RUN = const(16)
_GP_POWER = const(17)
_GP_SDA = const(18)
_GP_SCL = const(19)
_I2C_BUS = const(1)
_I2C_HZ = const(100_000)
_X_ADDRESS = const(0x27)


def _drive(gpio):
    return Pin(gpio, Pin.OUT, value=0)


def _light(gpio):
    return Pin(gpio, Pin.IN, Pin.PULL_DOWN)


def expander():
    i2c = I2C(_I2C_BUS, scl=Pin(_GP_SCL), sda=Pin(_GP_SDA), freq=_I2C_HZ)
    pulled_down = 0
    for bit in _X_BET_LIGHT + _X_JACKPOT_LIGHT:
        pulled_down |= 1 << bit
    return RigExpander(i2c, _X_ADDRESS, pulled_down)


def build(sleep_ms):
    chip = expander()
    drives = {name: _drive(gpio) for name, gpio in _GP_DRIVE}
    drives.update({name: Drive(chip, bit) for name, bit in _X_DRIVE})
    bet = [_light(gpio) for gpio in _GP_BET_LIGHT] + [Light(chip, b) for b in _X_BET_LIGHT]
    jackpot = [_light(gpio) for gpio in _GP_JACKPOT_LIGHT] + [
        Light(chip, bit) for bit in _X_JACKPOT_LIGHT]
    return RigPins(drives, bet, jackpot, sleep_ms,
                   run=_drive(_GP_RUN), power=Pin(_GP_POWER, Pin.OUT, value=1))
