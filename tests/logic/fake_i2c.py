# A stand-in for machine.I2C with MCP23017s on it, modelled from Microchip's
# datasheet (DS20001952), not from the driver: the register map of
# IOCON.BANK = 0 (IODIRA 0x00 .. OLATB 0x15, IOCON at 0x0A and 0x0B alike),
# the power-on values (IODIR 0xFF, the rest 0x00), the address pointer moving
# on through the map while IOCON.SEQOP = 0 and wrapping to 0x00 past 0x15,
# GPIO read as the pins' levels (an input's inverted where IPOL is set, an
# output's as its latch), GPIO written as OLAT, INTF and INTCAP read-only.
#
# The outside world: `drive(bit, level)` holds an input pin at 0 or 1, None
# leaves it to its pull-up (GPPU; without one, a floating pin here reads 0).
# A missing address, or any transaction while `bus.broken`, raises
# OSError(EIO), as MicroPython's I2C does on a NACK.
import errno

REGISTERS = 0x16
IODIR, IPOL, IOCON, GPPU, INTF, INTCAP, GPIO, OLAT = 0x00, 0x02, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x14
IOCON_BANK = 0x80
IOCON_SEQOP = 0x20


class Mcp23017Model:
    def __init__(self):
        self.regs = bytearray(REGISTERS)
        self.regs[IODIR] = self.regs[IODIR + 1] = 0xFF  # every pin an input at power-on
        self.outside = [None] * 16  # an input pin's level held from outside, or None

    def _pair(self, base):
        return self.regs[base] | self.regs[base + 1] << 8

    def drive(self, bit, level):
        self.outside[bit] = level

    def pin_level(self, bit):
        if (self._pair(IODIR) >> bit) & 1 == 0:
            return (self._pair(OLAT) >> bit) & 1  # an output drives its latch
        if self.outside[bit] is not None:
            return 1 if self.outside[bit] else 0
        return (self._pair(GPPU) >> bit) & 1  # pulled up, or floating (read as 0)

    def output(self, bit):
        # What an output pin drives: its latch while it is an output, else nothing (0).
        return self.pin_level(bit) if (self._pair(IODIR) >> bit) & 1 == 0 else 0

    def _read_register(self, reg):
        if reg in (GPIO, GPIO + 1):
            port = reg - GPIO
            value = 0
            for i in range(8):
                bit = port * 8 + i
                level = self.pin_level(bit)
                is_input = (self.regs[IODIR + port] >> i) & 1
                if is_input and (self.regs[IPOL + port] >> i) & 1:
                    level ^= 1
                value |= level << i
            return value
        if reg == IOCON + 1:
            return self.regs[IOCON]
        return self.regs[reg]

    def _write_register(self, reg, value):
        if reg in (IOCON, IOCON + 1):
            assert not value & IOCON_BANK, "the model knows the BANK = 0 map only"
            self.regs[IOCON] = value
        elif reg in (GPIO, GPIO + 1):
            self.regs[OLAT + reg - GPIO] = value
        elif reg not in (INTF, INTF + 1, INTCAP, INTCAP + 1):
            self.regs[reg] = value

    def _next(self, reg):
        if self.regs[IOCON] & IOCON_SEQOP:
            return reg ^ 1  # byte mode, BANK = 0: the pointer toggles within the A/B pair
        return (reg + 1) % REGISTERS

    def read(self, reg, count):
        out = bytearray(count)
        for i in range(count):
            out[i] = self._read_register(reg)
            reg = self._next(reg)
        return out

    def write(self, reg, data):
        for value in data:
            self._write_register(reg, value)
            reg = self._next(reg)


class FakeI2C:
    def __init__(self, devices):
        self.devices = devices  # {address: Mcp23017Model}
        self.broken = False
        self.transactions = 0
        self.log = None  # a list to record (kind, address, register, count) in

    def _note(self, *entry):
        self.transactions += 1
        if self.log is not None:
            self.log.append(entry)

    def _device(self, address):
        device = None if self.broken else self.devices.get(address)
        if device is None:
            raise OSError(errno.EIO)
        return device

    def readfrom_mem(self, address, register, count):
        data = self._device(address).read(register, count)
        self._note("read", address, register, count)
        return bytes(data)

    def readfrom_mem_into(self, address, register, buf):
        data = self._device(address).read(register, len(buf))
        self._note("read", address, register, len(buf))
        for i in range(len(buf)):
            buf[i] = data[i]

    def writeto_mem(self, address, register, data):
        self._device(address).write(register, bytes(data))
        self._note("write", address, register, len(data))
