# The virtual board's MCP23017s: register models behind a machine.I2C face,
# so the firmware's own driver (table/mcp23017.py) runs on the virtual board
# as on a real one. From Microchip's datasheet (DS20001952): the IOCON.BANK = 0
# map (IODIRA 0x00 .. OLATB 0x15, IOCON at 0x0A and 0x0B alike), power-on
# IODIR 0xFF and the rest 0, the pointer moving on while IOCON.SEQOP = 0
# (wrapping past 0x15) and toggling within an A/B pair while it is 1, GPIO
# read as the pins (an input's inverted where IPOL is set), GPIO written as
# OLAT, INTF and INTCAP read-only.
import errno

from micropython import const

_REGISTERS = const(0x16)
_IODIR = const(0x00)
_IPOL = const(0x02)
_IOCON = const(0x0A)
_GPPU = const(0x0C)
_INTF = const(0x0E)
_GPIO = const(0x12)
_OLAT = const(0x14)
_SEQOP = const(0x20)


class Mcp23017Model:
    def __init__(self):
        self.regs = bytearray(_REGISTERS)
        self.regs[_IODIR] = self.regs[_IODIR + 1] = 0xFF
        self.outside = [None] * 16  # an input pin held at 0/1 from outside, or None

    def _pair(self, base):
        return self.regs[base] | self.regs[base + 1] << 8

    def drive(self, bit, level):
        self.outside[bit] = level

    def output(self, bit):
        # 1 when the pin is an output driven high (a lamp's driver on).
        return 0 if (self._pair(_IODIR) >> bit) & 1 else (self._pair(_OLAT) >> bit) & 1

    def _pin(self, bit):
        if not (self._pair(_IODIR) >> bit) & 1:
            return (self._pair(_OLAT) >> bit) & 1
        if self.outside[bit] is not None:
            return 1 if self.outside[bit] else 0
        return (self._pair(_GPPU) >> bit) & 1

    def _read(self, reg):
        if reg in (_GPIO, _GPIO + 1):
            port = reg - _GPIO
            inverted = self.regs[_IODIR + port] & self.regs[_IPOL + port]
            value = 0
            for i in range(8):
                value |= self._pin(port * 8 + i) << i
            return value ^ inverted
        return self.regs[_IOCON] if reg == _IOCON + 1 else self.regs[reg]

    def _write(self, reg, value):
        if reg in (_IOCON, _IOCON + 1):
            self.regs[_IOCON] = value & 0x7F  # this model knows the BANK = 0 map only
        elif reg in (_GPIO, _GPIO + 1):
            self.regs[_OLAT + reg - _GPIO] = value
        elif not _INTF <= reg < _GPIO:
            self.regs[reg] = value

    def _next(self, reg):
        return reg ^ 1 if self.regs[_IOCON] & _SEQOP else (reg + 1) % _REGISTERS

    def read(self, reg, buf):
        for i in range(len(buf)):
            buf[i] = self._read(reg)
            reg = self._next(reg)

    def write(self, reg, data):
        for value in data:
            self._write(reg, value)
            reg = self._next(reg)


class ModelBus:
    # machine.I2C's memory calls over the models {address: Mcp23017Model}.
    # broken: nothing answers; detached: the addresses taken off the bus.
    # after_write(): called after each write, for the lights.
    def __init__(self, models, after_write):
        self.models = models
        self.after_write = after_write
        self.broken = False
        self.detached = set()

    def _device(self, address):
        model = self.models.get(address)
        if self.broken or address in self.detached or model is None:
            raise OSError(errno.EIO)  # no acknowledge, as machine.I2C reports it
        return model

    def readfrom_mem_into(self, address, register, buf):
        self._device(address).read(register, buf)

    def readfrom_mem(self, address, register, count):
        buf = bytearray(count)
        self.readfrom_mem_into(address, register, buf)
        return bytes(buf)

    def writeto_mem(self, address, register, data):
        self._device(address).write(register, data)
        self.after_write()
