# Whether the table's terminal is still there. A closed terminal sends SIGHUP
# to its session's leader alone: a shell passes it on to its jobs, but `make
# sim` waits on the table and passes nothing on, so the table would run on with
# no one to see it. A hung-up terminal answers every request with an I/O error.
import sys
import termios
import time

CHECK_S = 1.0  # asked once a second at most: the screen loop turns every 50 ms


class Terminal:
    def __init__(self, fd=None, clock=time.monotonic):
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.clock = clock
        self.checked = None

    def present(self):
        now = self.clock()
        if self.checked is not None and now - self.checked < CHECK_S:
            return True
        self.checked = now
        try:
            termios.tcgetattr(self.fd)
        except (termios.error, OSError):
            return False
        return True
