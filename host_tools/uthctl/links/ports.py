# Which serial port a board command talks to: the one given, or with
# `--port auto` the one MicroPython board attached. Like mpremote's
# `connect auto`, only USB serial ports are candidates (a port with a USB
# vendor and product id); unlike it, the first such port is not taken
# blindly: a board is a MicroPython USB identity (the Pico's own, the
# generic TinyUSB one, Espressif's native USB) or a USB-UART bridge that ESP32
# dev kits carry, and exactly one must be attached.
import os

import serial.tools.list_ports

AUTO = "auto"

# (vid, pid): what it is. pid None: any product of that vendor.
BOARDS = {
    (0x2E8A, 0x0005): "MicroPython on an RP2040 (Raspberry Pi Pico)",
    (0xF055, 0x9802): "MicroPython (TinyUSB default)",
    (0x303A, 0x4001): "MicroPython on an ESP32-S2/S3 (native USB)",
    (0x303A, 0x1001): "ESP32 USB Serial/JTAG",
    (0x10C4, 0xEA60): "CP210x USB-UART bridge (ESP32 dev kit)",
    (0x1A86, 0x7523): "CH340 USB-UART bridge (ESP32 dev kit)",
    (0x1A86, 0x55D4): "CH9102 USB-UART bridge (ESP32 dev kit)",
    (0x0403, 0x6001): "FTDI FT232 USB-UART bridge",
    (0x0403, 0x6015): "FTDI FT231X USB-UART bridge",
}


class PortNotFound(OSError):
    """No board's port could be found or the one given is not there."""
    pass


def add_port(parser):
    """Add the --port argument every board command takes."""
    # The --port argument every board command takes.
    parser.add_argument("--port", required=True, metavar="PORT",
                        help="the board's serial port (e.g. /dev/ttyACM0), the virtual board's "
                             "or the emulated Pico's pty, or 'auto': the one MicroPython board "
                             "attached by USB")


def comports():
    """The serial ports the system lists."""
    # The ports the system lists (tests replace this).
    return sorted(serial.tools.list_ports.comports(), key=lambda p: p.device)


def identity(port):
    """What a listed port's USB identity says it is, or None."""
    if port.vid is None or port.pid is None:
        return None
    return BOARDS.get((port.vid, port.pid))


def describe(port):
    """One port as mpremote's `connect list` shows it."""
    usb = "%04x:%04x" % (port.vid or 0, port.pid or 0) if port.vid is not None else "no USB id"
    words = [port.device, usb, port.manufacturer or "", port.product or ""]
    known = identity(port)
    if known:
        words.append("(%s)" % known)
    return " ".join(word for word in words if word)


def find_board(ports=None):
    """The device of the one board attached, or PortNotFound."""
    # The device of the one board attached; PortNotFound listing what was seen.
    ports = comports() if ports is None else ports
    boards = [port for port in ports if identity(port)]
    if len(boards) == 1:
        return boards[0].device
    if boards:
        raise PortNotFound("--port auto: %d MicroPython boards attached, give one with --port: "
                           "%s" % (len(boards), "; ".join(describe(p) for p in boards)))
    seen = "; ".join(describe(p) for p in ports) or "no serial ports at all"
    raise PortNotFound("--port auto: no MicroPython board attached (seen: %s)" % seen)


def not_a_board(device):
    """Why a device is no board's USB port, or None."""
    # Why the system's own serial port (a built-in UART, listed with no USB
    # id) is no board's USB port, or None: a USB port, a pty (the virtual
    # board's, the emulated Pico's) and anything unlisted may be a board.
    real = os.path.realpath(device)
    for port in comports():
        if os.path.realpath(port.device) == real and port.vid is None:
            return "%s is the machine's own serial port (no USB id), not a board's" % device
    return None


def resolve(port):
    """The port to use: the one given, or the one board attached."""
    return find_board() if port == AUTO else port



def usb_serial(device):
    """(vid, pid, serial number) of the port a device path names, or None."""
    # The USB identity of the port a device path names, (vid, pid, serial
    # number), or None where none is listed (a pty, a machine's own UART): a
    # board come back behind the same path is known by it, another refused.
    real = os.path.realpath(device)
    for port in comports():
        if os.path.realpath(port.device) == real and port.vid is not None:
            return port.vid, port.pid, port.serial_number
    return None
