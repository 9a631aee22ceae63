# Feeding the emulated ESP32's UART0 (QEMU's stdin) without losing the line.
#
# QEMU reads a serial port's input only while the UART model says its receive
# FIFO (128 bytes on the ESP32) has room, and looks again only when its main
# loop wakes. The ESP32 machine's UART does not wake it when the chip empties
# the FIFO, and nothing else in this machine wakes it for long stretches: a
# line longer than the FIFO stopped at 128 bytes and stayed there (a 400-byte
# line at the REPL was not read in 60 s; a settled round's `round` command is
# about 1 KB, and the controller dropped it as "no byte for 500 ms"). A chip's
# UART takes bytes at the wire's rate, whatever is behind them.
#
# So the supervisor hands QEMU at most FEED_PIECE bytes at a time, the next only
# once QEMU has taken the last from its stdin pipe, and when a piece sits unread
# it wakes QEMU's main loop by connecting to QEMU's QMP socket (an event on a
# descriptor that loop watches; the connection is closed at once and asks
# nothing).
#
# And at a pace the chip mostly keeps up with. Past the FIFO, the port's UART
# interrupt puts each byte into a 260-byte buffer (ports/esp32/mphalport.c,
# stdin_ringbuf) and drops what does not fit, while the controller reads that
# buffer only between its tasks. A chip's flash operation takes microseconds to
# milliseconds, QEMU's tens of milliseconds, so a settlement's records keep the
# emulated controller from reading for hundreds: at full speed the second
# `round` line of a run arrived with bytes missing (refused whole by the
# controller as not JSON). At 64 bytes each 100 ms (640 bytes a second) that
# buffer holds about 400 ms of input. No pace is safe against every pause:
# with the REPL asleep 250 ms on a loaded host, 477 bytes of a 1,000-byte line
# fed at 1 KB/s were lost. A real DevKitC's UART0 has the same buffer and no
# flow control (docs/boards.md, "The emulated ESP32").

import fcntl
import socket
import struct
import termios

FEED_PIECE = 64  # half the receive FIFO, so a piece is taken whole while the chip reads
FEED_EVERY = 0.1  # seconds between pieces
WAKE_EVERY = 0.01  # seconds between wakes while a piece waits unread


def unread(fd):
    # Bytes written to the pipe at fd and not yet read by QEMU (FIONREAD works on
    # either end of a Linux pipe).
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def wake(qmp_path):
    # One connection to QEMU's QMP socket, closed at once: its main loop wakes
    # and reads the serial port's input again.
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        sock.connect(qmp_path)
    except OSError:
        pass  # QEMU is gone or not listening yet: its restart feeds the rest
    finally:
        sock.close()


def qmp_option(qmp_path):
    return ["-qmp", "unix:%s,server=on,wait=off" % qmp_path]
