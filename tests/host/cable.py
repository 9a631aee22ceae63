# A USB cable between a host program and a board's pty, for the tests of a
# host that must live through a cable pulled: the host opens `path` (a stable
# name, as /dev/serial/by-id/... is), a pty of the cable's own relayed to the
# board's. pull() makes that port vanish (the name gone, the open one failing
# as a USB device unplugged does); plug() brings a new one under the same
# name. Every byte the host sent towards the board is kept in `sent`.
import os
import pty
import select
import threading
import tty


class Cable:
    def __init__(self, board_port, folder):
        self.board = os.open(board_port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.board)
        self.path = os.path.join(str(folder), "ttyACM0")
        self.sent = b""
        self.master = self.slave = None
        self.thread = None
        self.plug()

    def plug(self):
        self._drain()  # what the board said while unplugged is lost, as over USB
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        os.symlink(os.ttyname(self.slave), self.path)
        self.running = True
        self.thread = threading.Thread(target=self._relay, daemon=True)
        self.thread.start()

    def pull(self):
        self.running = False
        self.thread.join(5)
        os.unlink(self.path)
        for fd in (self.master, self.slave):
            os.close(fd)
        self.master = self.slave = None

    def close(self):
        if self.master is not None:
            self.pull()
        os.close(self.board)

    def _drain(self):
        while select.select([self.board], [], [], 0)[0]:
            try:
                if not os.read(self.board, 4096):
                    return
            except BlockingIOError:
                return

    def _relay(self):
        while self.running:
            ready = select.select([self.board, self.master], [], [], 0.05)[0]
            if self.board in ready:
                try:
                    os.write(self.master, os.read(self.board, 4096))
                except BlockingIOError:
                    pass
            if self.master in ready:
                data = os.read(self.master, 4096)
                self.sent += data
                os.write(self.board, data)
