# The MCP23017 16-bit I2C port expander (Microchip DS20001952), as the table
# uses it: each pin an input or an output, chosen once at start-up. The bus
# object (machine.I2C or anything with its readfrom_mem_into and
# writeto_mem) and the address come from the board; this module names no pin.
#
# Register addresses are those of IOCON.BANK = 0, the power-on default, which
# start-up writes again. IOCON.SEQOP = 0 keeps the address pointer moving, so
# GPIOA and GPIOB are read in one transaction, and the two latches written in
# one. Inputs are pulled up (GPPU) and inverted (IPOL): a sensor switching to
# ground reads 1, so bit n of `inputs` is 1 for a chip present. Outputs are
# written only when they change.
#
# Any bus error is an OSError from the bus object; the caller decides what it
# means (seat_expanders.py: the table's fault).
from micropython import const

IODIRA = const(0x00)
IPOLA = const(0x02)
IOCON = const(0x0A)
GPPUA = const(0x0C)
GPIOA = const(0x12)
OLATA = const(0x14)
_CONFIG_LEN = const(14)  # IODIRA .. GPPUB, read back at start-up
_IOCON_VALUE = const(0x00)  # BANK=0, MIRROR=0, SEQOP=0 (sequential), no interrupts used


class NotAnExpander(ValueError):
    # Something answered at the address, but its registers are not as written.
    pass


def _pair(word):
    return bytes((word & 0xFF, (word >> 8) & 0xFF))


class Mcp23017:
    # inputs_mask: bit n is pin n (GPA0..7 = bits 0..7, GPB0..7 = 8..15),
    # 1 for an input, 0 for an output.
    def __init__(self, i2c, address, inputs_mask):
        self.i2c = i2c
        self.address = address
        self.inputs_mask = inputs_mask & 0xFFFF
        self.outputs_mask = ~inputs_mask & 0xFFFF
        self.inputs = 0  # the last read: 1 = active (pulled low outside)
        self.latch = 0  # the outputs wanted; written by flush()
        self.written = None  # what the chip's latches hold; None: unknown
        self._buf = bytearray(2)

    def begin(self):
        # Outputs off before any pin becomes one: a latch left from before a
        # soft reboot would light a lamp for nothing.
        self.written = None
        self.i2c.writeto_mem(self.address, IOCON, bytes((_IOCON_VALUE,)))
        self.i2c.writeto_mem(self.address, OLATA, _pair(0))
        self.written = 0
        mask = _pair(self.inputs_mask)
        self.i2c.writeto_mem(self.address, IODIRA, mask)
        self.i2c.writeto_mem(self.address, IPOLA, mask)
        self.i2c.writeto_mem(self.address, GPPUA, mask)
        self._check_config(mask)
        self.read()

    def _check_config(self, mask):
        got = self.i2c.readfrom_mem(self.address, IODIRA, _CONFIG_LEN)
        want = {IODIRA: mask[0], IODIRA + 1: mask[1], IPOLA: mask[0], IPOLA + 1: mask[1],
                IOCON: _IOCON_VALUE, GPPUA: mask[0], GPPUA + 1: mask[1]}
        for register, value in want.items():
            if got[register] != value:
                raise NotAnExpander("register 0x%02x reads 0x%02x, not the 0x%02x written"
                                    % (register, got[register], value))

    def read(self):
        # One transaction: GPIOA then GPIOB.
        self.i2c.readfrom_mem_into(self.address, GPIOA, self._buf)
        self.inputs = (self._buf[0] | self._buf[1] << 8) & self.inputs_mask

    def flush(self):
        # Both latches in one transaction, only when an output changed.
        latch = self.latch & self.outputs_mask
        if latch != self.written:
            self.i2c.writeto_mem(self.address, OLATA, _pair(latch))
            self.written = latch


class Input:
    # One input pin, as the debouncer reads it: the level of the last read.
    def __init__(self, chip, bit):
        self.chip = chip
        self.bit = bit

    def value(self, level=None):
        return (self.chip.inputs >> self.bit) & 1


class Output:
    # One output pin: value(v) sets it in the latch the next flush writes.
    def __init__(self, chip, bit):
        self.chip = chip
        self.bit = bit

    def value(self, level=None):
        if level is None:
            return (self.chip.latch >> self.bit) & 1
        if level:
            self.chip.latch |= 1 << self.bit
        else:
            self.chip.latch &= ~(1 << self.bit)
        return None
