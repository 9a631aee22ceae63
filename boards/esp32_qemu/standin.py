# The emulated ESP32's bus stand-ins, on QEMU's ESP32 machine only (never in a
# build the project ships): QEMU's machine has an I2C controller but no
# MCP23017 behind it, and its GPIO and SPI pins reach nothing. So the SHIPPED
# board file (boards/esp32_devkitc/board.py, lib/board.mpy of the build) is
# given, in place of machine's, an I2C bus holding the two expanders as
# register models (boards/sim/mcp23017_model.py, the virtual board's), the
# LOCK and key inputs and the display's SPI bus with its chip select; the
# rest of machine (RTC, reset, the real Pins of the other GPIOs) is the chip's.
# The controller, the board file and every driver (table/mcp23017.py,
# table/max7219.py) run as shipped.
#
# The host's supervisor (host_tools/uthctl/boards/esp32.py) reaches the
# stand-ins over the chip's UART2 (QEMU's third serial port; routed to GPIO 32
# TX and 33 RX, pins the board file leaves free; a WROVER's PSRAM holds 16 and
# 17), in the virtual board's wire protocol (boards/sim/board.py): "hello" and the outputs go out
# ("betlightN 1", "jackpotN 0", and "spi REG DATA" for each frame the display
# is sent), input levels ("bet3 1", "lock 1": 1 = a chip present, a button
# pressed; "door 1": the compartment open, its switch letting go of the
# expander's pin, shut at start) and "i2c_fault ..." come in, "ready" after the levels at hello,
# and "sync N" is echoed once the lines before it are applied. The wire is
# read whenever the controller reads an input or the bus (each tick), so a
# sync comes back when the next tick sees its level.
#
# /boot.py on the emulated flash calls install() before main.py imports the
# board file: sys.modules["machine"] becomes the stand-in, so the board file's
# `from machine import I2C, RTC, SPI, Pin, reset` finds it.
import sys
import time

import machine
from mcp23017_model import Mcp23017Model, ModelBus
from micropython import const

from table.seat_expanders import place

SEATS = const(7)
EXPANDERS = (0x20, 0x21)  # boards/esp32_devkitc/board.py's _EXPANDERS
DOOR = (0x21, 3)  # and its _DOOR
GP_LOCK = const(13)  # its _GP_LOCK, _GP_KEY and _GP_CS
GP_KEY = const(14)
GP_CS = const(5)
UART_ID = const(2)
UART_TX = const(32)
UART_RX = const(33)
UART_BAUD = const(460_800)
_READY_MS = const(3000)

_real_pin = machine.Pin


class Wire:
    # The UART to the supervisor. No transmit buffer (txbuf=0): each line goes
    # straight into the UART's 128-byte FIFO, which QEMU empties at once. With
    # a buffer, ESP-IDF's driver refills the FIFO from its TX-FIFO-empty
    # interrupt, which this QEMU's UART model does not always raise, so the
    # buffer filled after about 1.3 KB and the write waited for ever, the
    # controller with it (the display's first frames at start). Each line is
    # one write, far under the FIFO's 128 bytes.
    def __init__(self):
        self.uart = machine.UART(UART_ID, UART_BAUD, tx=UART_TX, rx=UART_RX, rxbuf=1024,
                                 txbuf=0, timeout=0)
        self.inputs = {}  # name -> setter of a level
        self.inbuf = b""
        self.ready = False
        self.bus = None

    def send(self, line):
        self.uart.write(line + b"\n")

    def service(self):
        uart = self.uart
        while uart.any():
            data = uart.read()
            if not data:
                return
            self.inbuf += data
            while b"\n" in self.inbuf:
                line, self.inbuf = self.inbuf.split(b"\n", 1)
                self._apply(line.decode())

    def _apply(self, line):
        name, _, value = line.partition(" ")
        setter = self.inputs.get(name)
        if setter is not None:
            setter(1 if value == "1" else 0)
        elif name == "sync":
            self.send(b"sync " + value.encode())
        elif name == "ready":
            self.ready = True
        elif name == "i2c_fault" and self.bus is not None:
            words = value.split()
            on = words[:1] == ["1"]
            if len(words) == 1:
                self.bus.broken = on
            elif on:
                self.bus.detached.add(int(words[1]))
            else:
                self.bus.detached.discard(int(words[1]))

    def hello(self):
        # At power-on: the levels the supervisor holds, before the controller starts.
        self.send(b"hello")
        start = time.ticks_ms()
        while not self.ready and time.ticks_diff(time.ticks_ms(), start) < _READY_MS:
            self.service()
            time.sleep_ms(5)


class Bus(ModelBus):
    # The I2C bus with the two expanders on it; each call reads the wire first.
    def __init__(self, wire):
        self.wire = wire
        self.models = {address: Mcp23017Model() for address in EXPANDERS}
        super().__init__(self.models, self._show_lights)
        wire.bus = self
        self.lights = []  # (name, model, bit, last level sent)
        for n in range(1, SEATS + 1):
            for name, signal in (("bet%d", "bet"), ("uth%d", "uth")):
                chip, bit = place(n, signal)
                wire.inputs[name % n] = self._driver(self.models[EXPANDERS[chip]], bit)
            for name, signal in (("betlight%d", "bet_light"), ("jackpot%d", "jackpot_light")):
                chip, bit = place(n, signal)
                self.lights.append([name % n, self.models[EXPANDERS[chip]], bit, None])
        door = self.models[DOOR[0]]
        wire.inputs["door"] = self._door(door, DOOR[1])
        door.drive(DOOR[1], 0)  # shut until the supervisor's levels say otherwise

    @staticmethod
    def _driver(model, bit):
        def drive(level):
            model.drive(bit, 0 if level else None)  # a chip pulls the pin low
        return drive

    @staticmethod
    def _door(model, bit):
        def drive(level):
            model.drive(bit, None if level else 0)  # open: the switch lets go of the pin
        return drive

    def _show_lights(self):
        for light in self.lights:
            level = light[1].output(light[2])
            if level != light[3]:
                light[3] = level
                self.wire.send(b"%s %d" % (light[0].encode(), level))

    def readfrom_mem_into(self, address, register, buf):
        self.wire.service()
        super().readfrom_mem_into(address, register, buf)


class InputPin:
    # LOCK or the key: pulled up, read low while pressed (the board file's ActiveLow).
    def __init__(self, wire, name):
        self.wire = wire
        self.level = 0
        wire.inputs[name] = self._set

    def _set(self, level):
        self.level = level

    def value(self, level=None):
        if level is None:
            self.wire.service()
            return 0 if self.level else 1
        return None

    def __call__(self, level=None):
        return self.value(level)


class SelectPin:
    # The display's chip select: the SPI stand-in sends a frame when it rises.
    def __init__(self):
        self.level = 1
        self.frame = b""

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = 1 if level else 0
        return None

    def __call__(self, level=None):
        return self.value(level)

    def init(self, *args, **kwargs):
        pass


class Spi:
    # The MAX7219's bus: each 2-byte frame goes to the supervisor, which
    # decodes the display (host_tools/uthctl/boards/max7219_model.py).
    def __init__(self, wire):
        self.wire = wire

    def write(self, data):
        for i in range(0, len(data) - 1, 2):
            self.wire.send(b"spi %d %d" % (data[i], data[i + 1]))

    def init(self, *args, **kwargs):
        pass

    def deinit(self):
        pass


class Machine:
    # The module the board file imports as machine: the chip's, less I2C, SPI
    # and the three stood-in Pins.
    pass


def install():
    wire = Wire()
    bus = Bus(wire)
    spi = Spi(wire)
    pins = {GP_LOCK: InputPin(wire, "lock"), GP_KEY: InputPin(wire, "key"),
            GP_CS: SelectPin()}

    def pin(number, *args, **kwargs):
        stood_in = pins.get(number)
        return stood_in if stood_in is not None else _real_pin(number, *args, **kwargs)

    for name in dir(machine):
        if not name.startswith("__"):
            setattr(Machine, name, getattr(machine, name))
    Machine.I2C = lambda *args, **kwargs: bus
    Machine.SPI = lambda *args, **kwargs: spi
    Machine.Pin = _PinFace(pin)
    sys.modules["machine"] = Machine
    wire.hello()
    return wire


class _PinFace:
    # Pin(number, ...) as the board file calls it, with Pin.IN, Pin.OUT, ... the chip's.
    def __init__(self, make):
        self._make = make

    def __call__(self, *args, **kwargs):
        return self._make(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(_real_pin, name)
