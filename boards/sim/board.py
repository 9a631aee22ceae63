# The virtual board: the firmware on the unix-port MicroPython behind a
# pseudo-terminal, run by the supervisor host_tools/uthctl/boards/virtual.py.
#
#   boot    simboot.py, as a board's _boot.py: the flash (a littlefs image
#           in a file) at /, the working folder, and machine.reset()
#   pins    wires over a TCP connection to the supervisor (UTH_SIM_WIRE,
#           "127.0.0.1:PORT"): one text line per change, "NAME LEVEL\n";
#           inputs bet1..7, uth1..7, lock, key, door come in, outputs betlight1..7,
#           jackpot1..7 and "display TEXT" go out. Without UTH_SIM_WIRE the
#           board runs unwired: inputs read 0, outputs go nowhere.
#   seats   as on the real boards, both spots and both lights of each seat on
#           two MCP23017s (mcp23017_model.py) read and written by the
#           firmware's driver (table/seat_expanders.py): betN and uthN drive
#           the models' input pins (1 = a chip pulls the pin low), their
#           output latches become betlightN and jackpotN. "i2c_fault 1" breaks
#           the bus, "i2c_fault 1 ADDRESS" takes one expander off it, "... 0"
#           mends it: the next I2C call fails as a NACK does on a board.
#   door    the compartment door's switch on U2's GPA3 (DOOR), as the Pico
#           and ESP32 board files wire it: "door 1" opens the door (the
#           switch lets go of the pin), "door 0" shuts it (pulls it low), and
#           the door starts shut, wired or not.
#   display "display_fault 1" makes the LED meter stop acknowledging, as a
#           TM1637 on a broken wire does; "display_fault 0" mends it.
#   serial  stdin/stdout, the pty the supervisor relays to the host
#   random  os.urandom; UTH_SIM_SEED (TEST ONLY, never for play) swaps in a
#           seeded generator so tests can predict hit values
#   clock   the system's; UTH_SIM_RATE=N (a soak's) runs the controller's
#           clock N times faster than the host's (fastclock.py)
#
# Wire protocol, board side: on connecting the board sends "hello" and its
# present outputs; the supervisor answers with every input level and "ready"
# (build() waits up to 0.5 s for it, as a board reads its pins at power-on).
# The supervisor follows a rig's change with "sync N", which the board echoes
# once the lines before it are applied: the rig then knows the next tick sees
# its levels. A lost connection is retried every second from service(), which
# never blocks (a connect to 127.0.0.1 is accepted or refused at once).
import gc
import os
import select
import socket
import sys
import time

import machine  # simboot's stand-in, once booted
import simboot  # the supervisor boots it before this module loads the firmware
from mcp23017_model import Mcp23017Model, ModelBus
from micropython import const

from table.door import expander_input
from table.pins import ShutWhenLow
from table.program import files_program
from table.seat_expanders import SeatExpanders, place
from table.serial import UsbSerial

SEATS = const(7)
EXPANDERS = (0x20, 0x21)  # as the real boards' addresses
DOOR = (0x21, 3)  # the door switch's expander pin, as the real boards' _DOOR
WIRE_ENV = "UTH_SIM_WIRE"
SEED_ENV = "UTH_SIM_SEED"  # TEST ONLY: a deterministic random source
RATE_ENV = "UTH_SIM_RATE"  # a soak's: the controller's clock this many times the host's
# What the virtual board's own parts take of its heap beyond a real board's: its
# boot and littlefs mount (simboot.py), the wire, the expander models and fast
# clock, in bytes (bench/sim_overhead.py measures it; docs/heap.md, "The virtual
# board's overhead"). The supervisor runs it at the Pico's heap plus this.
HEAP_OVERHEAD = const(32_768)
# The log's segments of 32 records: about 15 KB each with the record key, 20
# of them 300 KB of the 512 KB flash (docs/mystery.md, "Collected").
LOG_SEGMENTS = const(20)

_RETRY_MS = const(1000)
_READY_MS = const(500)
_MAX_OUT = const(4096)  # unsent bytes beyond this: drop the link, resend all
# Linux's IPPROTO_TCP and TCP_NODELAY, which the unix port's socket module
# does not name: the pin lines are tiny, and Nagle's delay would hold a
# "sync" behind an unacknowledged line for a delayed ACK (docs/testing.md,
# "The soak").
_IPPROTO_TCP = const(6)
_TCP_NODELAY = const(1)


# ---- pins ----


class InputWire:
    # value() is the last level the supervisor sent.
    def __init__(self, name):
        self.name = name
        self.level = 0

    def set(self, level):
        self.level = level

    def value(self, level=None):
        if level is None:
            return self.level
        return None  # an input pin ignores writes


class ExpanderWire:
    # An input line that drives an expander model's pin: 1 pulls it low.
    def __init__(self, model, bit):
        self.model = model
        self.bit = bit

    def set(self, level):
        self.model.drive(self.bit, 0 if level else None)


class DoorWire:
    # The door switch on an expander model's pin: level 1 is the door open,
    # the pin left to its pull-up; 0 is shut, the switch pulling it low.
    def __init__(self, model, bit):
        self.model = model
        self.bit = bit
        self.set(0)

    def set(self, level):
        self.model.drive(self.bit, None if level else 0)


class OutputWire:
    # value(v) sends the change; value() reads back the level last set.
    def __init__(self, wires, name):
        self.wires = wires
        self.name = name
        self.level = None  # never set: nothing sent yet

    def value(self, level=None):
        if level is None:
            return self.level or 0
        level = 1 if level else 0
        if level != self.level:
            self.level = level
            self.wires.send(self.name, "%d" % level)
        return None


class Display:
    # The LED meter as a TM1637 is seen: show() and check() say whether the
    # chip acknowledged the frame, so the controller watches it
    # (table/display_watch.py); "display_fault 1" makes it stop answering, as
    # a broken wire does, "display_fault 0" mends it.
    def __init__(self, wires):
        self.wires = wires
        self.text = None
        self.acking = True
        self.missed_acks = 0  # as the TM1637 driver counts them

    def show(self, text):
        self.text = text
        self.wires.send("display", text)
        return self.check()

    def check(self):
        if not self.acking:
            self.missed_acks += 9  # the data command, the address, six digits, the control
        return self.acking


class Wires:
    # The TCP connection to the supervisor; all I/O from service(), non-blocking.
    def __init__(self, address):
        self.address = address  # (host, port) or None: unwired
        self.inputs = {}
        self.outputs = []  # (name, object) to resend after a reconnect
        self.sock = None
        self.poller = None
        self.inbuf = b""
        self.outbuf = b""
        self.ready = False
        self.retry_at = time.ticks_ms()
        self.display = None  # resent after a reconnect too
        self.bus = None  # the expanders' ModelBus, for "i2c_fault"

    def input(self, name, wire=None):
        wire = wire or InputWire(name)
        self.inputs[name] = wire
        return wire

    def output(self, name):
        wire = OutputWire(self, name)
        self.outputs.append(wire)
        return wire

    def send(self, name, text):
        if self.sock is not None:
            self.outbuf += ("%s %s\n" % (name, text)).encode()

    # ---- connection ----

    def connect(self):
        self.retry_at = time.ticks_add(time.ticks_ms(), _RETRY_MS)
        sock = socket.socket()
        try:
            # To 127.0.0.1 this answers at once: accepted or refused.
            sock.connect(socket.getaddrinfo(self.address[0], self.address[1])[0][-1])
        except OSError:
            sock.close()
            return False
        sock.setsockopt(_IPPROTO_TCP, _TCP_NODELAY, 1)
        sock.setblocking(False)
        self.sock = sock
        self.poller = select.poll()
        self.poller.register(sock, select.POLLIN)
        self.inbuf = b""
        self.outbuf = b"hello\n"
        self.ready = False
        for wire in self.outputs:
            if wire.level is not None:
                self.send(wire.name, "%d" % wire.level)
        if self.display is not None and self.display.text is not None:
            self.send("display", self.display.text)
        return True

    def drop(self):
        # The retry counts from the drop: a retry_at left from a connect made
        # days ago would lie past ticks_diff's 2**29 ms and wait days more.
        self.retry_at = time.ticks_add(time.ticks_ms(), _RETRY_MS)
        if self.sock is not None:
            self.sock.close()
        self.sock = None
        self.poller = None
        self.outbuf = b""

    def wait_ready(self, ms):
        # At boot only: read the pins' levels before the controller starts.
        start = time.ticks_ms()
        while self.sock is not None and not self.ready:
            if time.ticks_diff(time.ticks_ms(), start) >= ms:
                return
            self.service()
            time.sleep_ms(2)

    # ---- every tick ----

    def service(self):
        if self.sock is None:
            if self.address is not None and time.ticks_diff(time.ticks_ms(),
                                                            self.retry_at) >= 0:
                self.connect()
            return
        self._receive()
        self._flush()

    def _receive(self):
        while self.sock is not None and self.poller.poll(0):
            try:
                data = self.sock.recv(512)
            except OSError:
                data = b""
            if not data:
                self.drop()
                return
            self.inbuf += data
            while b"\n" in self.inbuf:
                line, self.inbuf = self.inbuf.split(b"\n", 1)
                self._apply(line)

    def _apply(self, line):
        name, _, value = line.decode().partition(" ")
        wire = self.inputs.get(name)
        if wire is not None:
            wire.set(1 if value == "1" else 0)
        elif name == "i2c_fault" and self.bus is not None:
            self._i2c_fault(value.split())
        elif name == "display_fault" and self.display is not None:
            self.display.acking = value != "1"
        elif name == "ready":
            self.ready = True
        elif name == "sync":
            self.send("sync", value)

    def _i2c_fault(self, words):
        on = words[:1] == ["1"]
        if len(words) == 1:
            self.bus.broken = on
        elif on:
            self.bus.detached.add(int(words[1]))
        else:
            self.bus.detached.discard(int(words[1]))

    def _flush(self):
        if self.sock is None or not self.outbuf:
            return
        try:
            sent = self.sock.send(self.outbuf)
        except OSError as error:
            if error.errno != 11:  # EAGAIN: the supervisor is slow; later
                self.drop()
            sent = 0
        self.outbuf = self.outbuf[sent:]
        if len(self.outbuf) > _MAX_OUT:
            self.drop()


def _wire_address():
    text = os.getenv(WIRE_ENV)
    if not text:
        return None
    host, _, port = text.rpartition(":")
    return (host or "127.0.0.1", int(port))


# ---- serial and random source ----


def _random_source():
    seed = os.getenv(SEED_ENV)
    if seed:
        from seeded_bytes import SeededBytes  # TEST ONLY: loaded only when seeded

        return SeededBytes(int(seed))
    return os.urandom


def _clock():
    # None: the system clock (table/app.py), as on every real board.
    rate = os.getenv(RATE_ENV)
    if not rate:
        return None
    from fastclock import FastClock

    return FastClock(int(rate))


# ---- the board ----


class Board:
    def __init__(self, wires):
        self.wires = wires
        self.models = {address: Mcp23017Model() for address in EXPANDERS}
        self.bus = wires.bus = ModelBus(self.models, self._show_lights)
        self.io = SeatExpanders(self.bus, EXPANDERS, SEATS)
        self.seats = self.io.seats
        self.qualify = None  # both spots sensed
        self.lights = []  # (output wire, model, bit)
        for n in range(1, SEATS + 1):
            for name, signal in (("bet%d", "bet"), ("uth%d", "uth")):
                chip, bit = place(n, signal)
                wires.input(name % n, ExpanderWire(self.models[EXPANDERS[chip]], bit))
            for name, signal in (("betlight%d", "bet_light"), ("jackpot%d", "jackpot_light")):
                chip, bit = place(n, signal)
                self.lights.append((wires.output(name % n), self.models[EXPANDERS[chip]], bit))
        self.lock = wires.input("lock")
        self.key = wires.input("key")
        wires.input("door", DoorWire(self.models[DOOR[0]], DOOR[1]))
        self.door = ShutWhenLow(expander_input(self.io, *DOOR))
        self.display = Display(wires)
        wires.display = self.display
        self.serial = UsbSerial(sys.stdin, sys.stdout)
        self.storage_root = "/meter"
        self.log_segments = LOG_SEGMENTS
        self.random_bytes = _random_source()
        self.clock = _clock()
        self.rtc = simboot.RTC  # the host's clock plus the offset a set leaves (simboot.py)
        # The board it stands in for has the heap less what the virtual board's own parts take.
        self.heap_bytes = gc.mem_free() + gc.mem_alloc() - HEAP_OVERHEAD
        self.reset = machine.reset  # simboot's: a power cycle (HARD_RESET_EXIT)
        self.program = _program()

    def service(self):
        self.wires.service()

    def _show_lights(self):
        # After each write to an expander: its output pins, as the lamps see them.
        for wire, model, bit in self.lights:
            wire.value(model.output(bit))


def _program():
    # The build the supervisor lends (its lib/ and main.py in one folder), else
    # what `make deploy BOARD=sim` copied onto the flash.
    lent = simboot.HOST_PREFIX + "firmware"
    if lent in sys.path:
        return files_program(lent, lent + "/main.py")
    return files_program("/lib", "/main.py")


def build():
    simboot.boot()
    try:
        os.mkdir("/meter")
    except OSError:
        pass  # already there; a flash that does not mount faults the store instead
    wires = Wires(_wire_address())
    board = Board(wires)
    if wires.address is not None and wires.connect():
        wires.wait_ready(_READY_MS)
    return board
