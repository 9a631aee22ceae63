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
        chunk = port.read(max(1, min(port.in_waiting, 4096)))
        data += chunk
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
        for at in range(0, len(data), 256):
            port.write(data[at:at + 256])
            time.sleep(0.01)
        port.write(b"\x04")
        deadline = time.monotonic() + timeout
        _read_until(port, b"OK", deadline, "acknowledgement of the program", boots)
        out = _read_until(port, b"\x04", deadline, "end of the program's output", boots)[:-1]
        err = _read_until(port, b"\x04", deadline, "end of the program's errors", boots)[:-1]
        _read_until(port, b">", deadline, "raw REPL prompt", boots)
        port.write(b"\x02")  # the friendly REPL again
    return out.decode(errors="replace"), err.decode(errors="replace")


def check(path, code, timeout=600.0, boots=None):
    # The program's output; RawReplError with its traceback when it raised.
    out, err = run(path, code, timeout, boots=boots)
    if err.strip():
        raise RawReplError("the board raised:\n%s" % err)
    return out
