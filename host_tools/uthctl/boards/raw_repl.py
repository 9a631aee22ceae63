# A program run on a board's raw REPL over its serial port, with waits as long
# as an emulated chip needs (mpremote's are a real board's: its soft reset and
# raw-REPL entry give up within seconds, which QEMU's ESP32 can take on a
# loaded host). No soft reset: what runs shares the interpreter with whatever
# main.py and boot.py left, so a census reads the heap as the board has it.
import time

import serial

RAW_PROMPT = b"raw REPL; CTRL-B to exit\r\n>"


class RawReplError(RuntimeError):
    pass


class BoardRestarted(RawReplError):
    # The board restarted (a panic, a reset) while the program ran.
    pass


def _read_until(port, marker, deadline, what, boots=None):
    # What the board sends up to and including marker, read a byte at a time so
    # nothing past the marker is taken from the port.
    data = b""
    first = boots() if boots is not None else None
    checked = time.monotonic()
    while not data.endswith(marker):
        if time.monotonic() > deadline:
            raise RawReplError("no %s within the wait; last output: %r" % (what, data[-300:]))
        if boots is not None and time.monotonic() - checked > 1.0:
            checked = time.monotonic()
            if boots() != first:
                raise BoardRestarted("the board restarted before the %s" % what)
        data += port.read(1)
    return data


def run(path, code, timeout=600.0, enter_timeout=120.0, boots=None):
    # (stdout, stderr) of code run on the board at path's raw REPL: the
    # controller or a program stopped first with Ctrl-C, the friendly REPL
    # restored after. RawReplError when it does not answer in time;
    # BoardRestarted when boots() (the supervisor's count of power-ons, if
    # given) changes while the program runs.
    with serial.Serial(path, 115200, timeout=0.2) as port:
        deadline = time.monotonic() + enter_timeout
        port.write(b"\r\x03\x03")
        time.sleep(0.2)
        port.reset_input_buffer()
        port.write(b"\x01")
        while True:
            try:
                _read_until(port, RAW_PROMPT, min(deadline, time.monotonic() + 5), "raw REPL")
                break
            except RawReplError:
                if time.monotonic() > deadline:
                    raise
                port.write(b"\r\x03\x03\x01")
        data = code.encode() if isinstance(code, str) else code
        deadline = time.monotonic() + timeout
        _paste(port, data, deadline, boots)
        out = _read_until(port, b"\x04", deadline, "end of the program's output", boots)[:-1]
        err = _read_until(port, b"\x04", deadline, "end of the program's errors", boots)[:-1]
        _read_until(port, b">", deadline, "raw REPL prompt", boots)
        port.write(b"\x02")  # the friendly REPL again
    return out.decode(errors="replace"), err.decode(errors="replace")


def _paste(port, data, deadline, boots):
    # The raw REPL's paste mode, flow-controlled: the board grants a window of
    # bytes at a time (\x01 for another), so a slow chip's UART drops nothing.
    port.write(b"\x05A\x01")
    _read_until(port, b"R", deadline, "paste mode's answer", boots)
    if _read_exactly(port, 1, deadline) != b"\x01":
        raise RawReplError("the board has no raw paste mode")
    window = int.from_bytes(_read_exactly(port, 2, deadline), "little")
    remain, at = window, 0
    while at < len(data):
        while remain == 0 or port.in_waiting:
            byte = _read_exactly(port, 1, deadline)
            if byte == b"\x01":
                remain += window
            elif byte == b"\x04":
                port.write(b"\x04")
                raise RawReplError("the board ended the paste early")
            else:
                raise RawReplError("unexpected %r during paste" % byte)
        piece = data[at:at + remain]
        port.write(piece)
        remain -= len(piece)
        at += len(piece)
    port.write(b"\x04")
    _read_until(port, b"\x04", deadline, "end of the paste", boots)


def _read_exactly(port, count, deadline):
    data = b""
    while len(data) < count:
        if time.monotonic() > deadline:
            raise RawReplError("the board stopped answering during paste")
        data += port.read(count - len(data))
    return data


def check(path, code, timeout=600.0, boots=None):
    # The program's output; RawReplError with its traceback when it raised.
    out, err = run(path, code, timeout, boots=boots)
    if err.strip():
        raise RawReplError("the board raised:\n%s" % err)
    return out
