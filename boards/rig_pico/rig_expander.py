# The rig's own MCP23017 (Microchip DS20001952) on the rig's I2C: port A
# eight outputs (drives through NPNs, high = chip present), port B inputs
# (lights, high = lit: no inversion; the two wired ones have pull-downs
# outside, so no pull-up on them, the unwired ones are pulled up so they do
# not float). Registers of IOCON.BANK = 0, the power-on map.
#
# The chip is configured before its first use and again after any bus error
# (it may have lost power and come back with every pin an input), its
# outputs then written as last asked. Every bus error is an ExpanderError
# naming the chip: the rig's reply says so, never "released" or "unlit" for a
# chip it could not reach.
from micropython import const

_IODIRA = const(0x00)
_IPOLA = const(0x02)
_IOCON = const(0x0A)
_GPPUA = const(0x0C)
_GPIOA = const(0x12)
_OLATA = const(0x14)
_PORT_B_INPUTS = const(0xFF)  # IODIRB: every port B pin an input
_PORT_A_OUTPUTS = const(0x00)  # IODIRA: every port A pin an output


class ExpanderError(OSError):
    pass


class RigExpander:
    def __init__(self, i2c, address, pulled_down):
        # pulled_down: the port B bits with a pull-down outside (the lights).
        self.i2c = i2c
        self.address = address
        self.pull_ups = 0xFF & ~pulled_down
        self.latch = 0  # port A as last asked: written when the chip answers
        self.configured = False

    def _fail(self, error):
        self.configured = False
        raise ExpanderError("the rig's expander at 0x%02x does not answer on its I2C (%s)"
                            % (self.address, error))

    def _configure(self):
        # Outputs off before port A becomes outputs: a latch left from before
        # would place a chip for nothing.
        write = self.i2c.writeto_mem
        write(self.address, _IOCON, b"\x00")  # BANK=0, sequential addressing
        write(self.address, _OLATA, bytes((self.latch, 0)))
        write(self.address, _IODIRA, bytes((_PORT_A_OUTPUTS, _PORT_B_INPUTS)))
        write(self.address, _IPOLA, b"\x00\x00")
        write(self.address, _GPPUA, bytes((0, self.pull_ups)))
        got = self.i2c.readfrom_mem(self.address, _IODIRA, 2)
        if got[0] != _PORT_A_OUTPUTS or got[1] != _PORT_B_INPUTS:
            raise OSError("IODIR reads %r, not as written" % (bytes(got),))
        self.configured = True

    def _ready(self):
        if not self.configured:
            self._configure()

    def write_a(self, latch):
        self.latch = latch
        try:
            self._ready()
            self.i2c.writeto_mem(self.address, _OLATA, bytes((latch,)))
        except OSError as error:
            self._fail(error)

    def read(self):
        # (port A, port B) as the pins are: one transaction.
        try:
            self._ready()
            got = self.i2c.readfrom_mem(self.address, _GPIOA, 2)
        except OSError as error:
            self._fail(error)
        return got[0], got[1]


class Drive:
    # One port A pin as a rig pin: value(1) places the chip; value() reads
    # the pin back from the chip.
    def __init__(self, chip, bit):
        self.chip = chip
        self.bit = bit

    def value(self, level=None):
        if level is None:
            return (self.chip.read()[0] >> self.bit) & 1
        mask = 1 << self.bit
        self.chip.write_a(self.chip.latch | mask if level else self.chip.latch & ~mask)
        return None


class Light:
    # One port B pin as a rig input: high = lit.
    def __init__(self, chip, bit):
        self.chip = chip
        self.bit = bit

    def value(self):
        return (self.chip.read()[1] >> self.bit) & 1
