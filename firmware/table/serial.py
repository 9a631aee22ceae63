# The USB serial link as MicroPython gives it on every board: stdin/stdout.
# Reads never block (the controller polls it), and lines go out as bytes with
# "\r\n", as a board's console ends lines.
import json
import select


class UsbSerial:
    def __init__(self, stdin, stdout):
        self.stdin = stdin.buffer if hasattr(stdin, "buffer") else stdin
        self.stdout = stdout.buffer if hasattr(stdout, "buffer") else stdout
        self.text_out = stdout  # for json.dump, which writes text
        self.poller = select.poll()
        self.poller.register(stdin, select.POLLIN)

    def read_available(self, limit=64):
        data = b""
        while len(data) < limit and self.poller.poll(0):
            byte = self.stdin.read(1)
            if not byte:
                break
            data += byte
        return data

    def write_line(self, text):
        # Two writes, not one joined copy: a long reply needs no third buffer.
        self.stdout.write(text.encode())
        self.stdout.write(b"\r\n")

    def write_json(self, message):
        # The line as json.dump writes it, a piece at a time into the port:
        # for a reply the heap, in pieces after hours of play, cannot hold
        # whole. Slower (a write a token), so only when write_line cannot be
        # made. The line ends whatever happens, so a line cut short by an
        # error is one bad line, not the start of the next.
        try:
            json.dump(message, self.text_out)
        finally:
            self.text_out.write("\r\n")  # on the same stream: the end comes after the text
