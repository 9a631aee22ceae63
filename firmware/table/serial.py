# The USB serial link as MicroPython gives it on every board: stdin/stdout.
# Reads never block (the controller polls it), and lines go out as bytes with
# "\r\n", as a board's console ends lines.
import select


class UsbSerial:
    def __init__(self, stdin, stdout):
        self.stdin = stdin.buffer if hasattr(stdin, "buffer") else stdin
        self.stdout = stdout.buffer if hasattr(stdout, "buffer") else stdout
        self.poller = select.poll()
        self.poller.register(stdin, select.POLLIN)

    def read_available(self, limit=64):
        data = b""
        while len(data) < limit and self.poller.poll(0):
            byte = self.stdin.read(1)
            if not byte:
                break
            data += byte
            if byte == b"\x03":
                break  # Ctrl-C stops the controller: what follows is the REPL's
        return data

    def write_line(self, text):
        # Two writes, not one joined copy: a long reply needs no third buffer.
        self.stdout.write(text.encode())
        self.stdout.write(b"\r\n")
