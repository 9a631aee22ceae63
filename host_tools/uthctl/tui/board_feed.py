# The TUI's one reader of the board's host link: events and board lines for
# the screen, replies for whoever waits for them, and the status and meters
# asked for twice a second.
import threading
import time
from collections import deque

from ..links.board_link import LinkError
from ..links.chip_clock import WALL, Patience

POLL_S = 0.5  # status and meters over the host link
COMMAND_TIMEOUT = 3.0
RETRY_S = 0.5  # a failed port is tried again this often


class BoardFeed(threading.Thread):
    # Owns the serial port's reading: events and board lines go to `inbox`,
    # replies to whoever waits for them; status and meters are asked twice a
    # second (and soon after any action), the latest kept in .status/.meters.
    def __init__(self, link, poll_s=POLL_S, reopen=None, clock=WALL):
        super().__init__(name="uthctl-link", daemon=True)
        self.link = link
        # The board's clock (chip_clock.py): a command's wait is counted on it
        # too, so a slow emulated chip is waited for rather than called silent.
        self.clock = clock
        # reopen() -> a new Link: for a port that vanished (a real board's USB
        # goes at a reset); without it a failed port is retried as it is.
        self.reopen = reopen
        self._lost = False
        self.poll_s = poll_s
        self.inbox = deque(maxlen=2000)  # ("event", dict), ("line" or "note", text)
        self.status = None
        self.meters = None
        self.failure = None
        self.answered_at = None  # when the board last replied (time.monotonic())
        self.at_repl = None  # why the board is taken to be at its REPL; no polls then
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._waiting = {}  # id -> [threading.Event, reply]
        self._next_id = 1
        self._poll_at = 0.0
        self._polled_at = 0.0
        self._polls = {}  # id -> "status" or "meters", with its deadline
        self._stopping = threading.Event()

    def stop(self):
        self._stopping.set()

    def close(self):
        self.link.close()

    def resume(self):
        # After a reset: poll again at once (a board still at its REPL shows it again).
        self.link.at_repl = None
        self.at_repl = None
        self._poll_at = 0.0

    def poll_soon(self):
        # After an event or an action; at most ten polls a second.
        self._poll_at = min(self._poll_at, self._polled_at + 0.1)

    def command(self, cmd, timeout=COMMAND_TIMEOUT, **fields):
        # From any thread: one command, its reply (LinkError if none in time).
        if self.at_repl:
            raise LinkError("the board is at its REPL (%s): its controller is stopped; r "
                            "resets the board" % self.at_repl)
        done = threading.Event()
        with self._lock:
            number, self._next_id = self._next_id, self._next_id + 1
            self._waiting[number] = [done, None]
        try:
            patience = Patience(timeout, self.clock)
            self._send(dict(fields, cmd=cmd, id=number))
            while not done.wait(patience.slice_s()):
                if patience.over():
                    raise LinkError("no reply to %r from the board within %s"
                                    % (cmd, patience.told()))
            return self._waiting[number][1]
        finally:
            with self._lock:
                self._waiting.pop(number, None)

    def _send(self, message):
        with self._write_lock:
            self.link.send(message)

    def run(self):
        while not self._stopping.is_set():
            try:
                if self._lost:
                    self._reopen()
                self._step()
                self.failure = None
            except (OSError, ValueError) as error:
                if self._stopping.is_set():
                    return
                self.failure = str(error)
                self._lost = self.reopen is not None and isinstance(error, OSError)
                time.sleep(RETRY_S)

    def _reopen(self):
        # The port again, as it may come back under the same name.
        self.link.close()
        with self._write_lock:
            self.link = self.reopen()
        self._lost = False
        self.inbox.append(("note", "host link: %s reopened" % self.link.port))
        self.resume()

    def _step(self):
        now = time.monotonic()
        for number, (_, deadline) in list(self._polls.items()):
            if now > deadline:
                del self._polls[number]
        if now >= self._poll_at and not self._polls and not self.at_repl:
            self._poll_at = now + self.poll_s
            self._polled_at = now
            for name in ("status", "meters"):
                with self._lock:
                    number, self._next_id = self._next_id, self._next_id + 1
                self._polls[number] = (name, now + COMMAND_TIMEOUT)
                self._send({"cmd": name, "id": number})
        message = self.link.read_message(0.05)
        for line in self.link.other:
            text = line.decode("utf-8", "replace").strip()
            if text:
                self.inbox.append(("line", text))
        self.link.other.clear()
        self.at_repl = self.link.repl_evidence(since=self._polled_at)
        if message is None:
            return
        self.answered_at = time.monotonic()
        if "ev" in message:
            self.inbox.append(("event", message))
            self.poll_soon()
            return
        number = message.get("id")
        poll = self._polls.pop(number, None) if isinstance(number, int) else None
        if poll is not None:
            if message.get("ok"):
                if poll[0] == "status":
                    self.status = message
                else:
                    self.meters = message.get("meters")
            return
        with self._lock:
            waiter = self._waiting.get(number) if isinstance(number, int) else None
            if waiter is not None:
                waiter[1] = message
                waiter[0].set()
