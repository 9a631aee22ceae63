# The test rig: a second Raspberry Pi Pico wired to the controller's Pico,
# copied to the rig as /lib/board.mpy. It is the only file that names the rig's
# pins; their wiring to the controller is in docs/boards.md, "The rig Pico".
# The lights are read into inputs pulled down, so that an open wire or a
# controller switched off reads unlit.
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
# The controller's door switch (its U2 GPA3, boards/rp2040_pico/board.py's
# _DOOR): the rig's transistor stands in for the switch, on while the door is
# shut. So the rig's "door" level 1, the door open, is its transistor off.
_GP_DOOR = const(26)
_GP_RUN = const(16)
_GP_POWER = const(17)
_GP_SDA = const(18)
_GP_SCL = const(19)
_I2C_BUS = const(1)
_I2C_HZ = const(100_000)
_X_ADDRESS = const(0x27)


def _drive(gpio):
    return Pin(gpio, Pin.OUT, value=0)


class _DoorDrive:
    # The door as the rig names it (1: open) on a drive that shuts it when on.
    def __init__(self, pin):
        self.pin = pin

    def value(self, level=None):
        if level is None:
            return 0 if self.pin.value() else 1
        self.pin.value(0 if level else 1)
        return None


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
    drives["door"] = _DoorDrive(_drive(_GP_DOOR))
    bet = [_light(gpio) for gpio in _GP_BET_LIGHT] + [Light(chip, b) for b in _X_BET_LIGHT]
    jackpot = [_light(gpio) for gpio in _GP_JACKPOT_LIGHT] + [
        Light(chip, bit) for bit in _X_JACKPOT_LIGHT]
    return RigPins(drives, bet, jackpot, sleep_ms,
                   run=_drive(_GP_RUN), power=Pin(_GP_POWER, Pin.OUT, value=1))
