# uthctl monitor --port PORT: the table as it plays, from the events the
# board sends on its own (docs/host-link.md), each with the host's time.
# It only listens: it sends no byte (not even Ctrl-C, which would stop the
# controller) unless --poll asks it to read `status` and `meters` every S
# seconds. When the port vanishes or fails (a board's USB re-enumerating at
# a reset, a cable pulled) it reopens it every half second, for --reopen-for
# seconds at most, and says so; a board that restarts behind a port that
# stays open (a USB-UART bridge, the virtual boards) shows itself by its
# controller's `started` event. A board that does not come back, or another
# board's USB identity behind the same path, ends it (exit 2): it never
# listens to a board it was not given. Ctrl-C ends it, exit 0.
import datetime
import json
import sys
import time

from ..errors import expecting
from ..links import ports
from ..links.board_link import Link, repl_sign, way_back
from .meters import seconds
from .monitor_text import event_line, table_line

RETRY_S = 0.5
REOPEN_FOR_S = 60.0
SOFT_REBOOT = b"MPY: soft reboot"


def add_parser(sub):
    parser = sub.add_parser("monitor", help="the table live: the board's events as they come "
                            "(sends nothing unless --poll)")
    ports.add_port(parser)
    parser.add_argument("--poll", type=seconds, metavar="S",
                        help="also read status and meters every S seconds (sends commands)")
    parser.add_argument("--timeout", type=seconds, default=5.0, metavar="S",
                        help="seconds to wait for a polled reply (more than 0)")
    parser.add_argument("--reopen-for", type=seconds, default=REOPEN_FOR_S, metavar="S",
                        help="how long to try a vanished port again before ending (default "
                        "%g s: a Pico's USB is back within a few)" % REOPEN_FOR_S)
    return parser


@expecting(OSError)
def run(args):
    """uthctl monitor: the table live, the board's events as they come."""
    monitor = Monitor(args.port, args.json, args.poll, args.timeout, args.reopen_for)
    try:
        monitor.run()
    except KeyboardInterrupt:
        pass  # Ctrl-C: the end of watching, not an error
    finally:
        monitor.close()
    return 0


def _usb_words(identity):
    if identity is None:
        return "none"
    vid, pid, serial_number = identity
    return "%04x:%04x serial %s" % (vid, pid, serial_number or "none")


def _now():
    return datetime.datetime.now(datetime.timezone.utc)


def _stamp(when):
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Monitor:
    def __init__(self, port, as_json, poll, timeout, reopen_for=REOPEN_FOR_S, out=None,
                 err=None):
        self.port = port
        self.reopen_for = reopen_for
        self.board = None  # the USB identity first opened, or None (a pty)
        self.as_json = as_json
        self.poll = poll
        self.timeout = timeout
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.link = None
        self.device = None
        self.next_poll = 0.0
        self.asked = 0

    # ---- the link ----

    def open(self):
        # The port as given (or found again, with auto); OSError if it cannot be.
        self.device = ports.resolve(self.port)
        self.link = Link(self.device, timeout=self.timeout, end_line=False, exclusive=True)
        if self.board is None:
            self.board = ports.usb_serial(self.device)

    def close(self):
        if self.link is not None:
            self.link.close()
            self.link = None

    def reopen(self, error):
        self.close()
        lost = time.monotonic()
        self.note("link lost: %s (%s); reopening every %.1f s for %g s"
                  % (self.device, error, RETRY_S, self.reopen_for))
        while time.monotonic() - lost < self.reopen_for:
            time.sleep(RETRY_S)
            try:
                self.open()
            except OSError:
                continue
            self.check_same_board()
            self.note("link back: %s reopened after %.1f s; events sent meanwhile are lost"
                      % (self.device, time.monotonic() - lost))
            return
        raise OSError("the board at %s did not come back within %g s: the monitor ends"
                      % (self.device, self.reopen_for))

    def check_same_board(self):
        # Another board behind the path (another USB serial number) is not
        # the one given: its I/O is not ours to take.
        found = ports.usb_serial(self.device)
        if self.board is not None and found != self.board:
            self.close()
            raise OSError("another board is at %s now (USB %s, was %s): the monitor ends"
                          % (self.device, _usb_words(found), _usb_words(self.board)))

    # ---- the loop ----

    def run(self):
        self.open()
        self.note("listening on %s%s; Ctrl-C ends" % (
            self.device, ", polling every %g s" % self.poll if self.poll else
            " (sending nothing)"))
        while True:
            try:
                self.step()
            except OSError as error:  # the port vanished or failed
                self.reopen(error)

    def step(self):
        line = self.link.read_line(timeout=0.2)
        if line is not None:
            self.take(line)
        if self.poll and time.monotonic() >= self.next_poll:
            self.next_poll = time.monotonic() + self.poll
            self.poll_table()

    def take(self, raw):
        text = raw.decode("utf-8", "replace").strip()
        message = _parse(text)
        if message is None:
            self.board_text(raw, text)
        elif "ev" in message:
            self.event(message, text)
        elif text:
            self.show("board: " + text, text)

    def board_text(self, raw, text):
        # A line that is not JSON: the REPL, a boot banner, a traceback.
        if not text:
            return
        if SOFT_REBOOT in raw:
            self.note("the board soft-rebooted: its controller starts again")
        elif repl_sign(raw):
            self.note("the board shows %s: its controller is stopped; %s"
                      % (repl_sign(raw), way_back(self.device)))
        self.err.write("board text: %s\n" % text)

    def event(self, message, text):
        if message.get("ev") == "started":
            self.note("the board's controller started (a power-on, reset or restart): "
                      "events sent while it was down are lost")
        self.show(event_line(message), text)

    def show(self, words, text, when=None):
        when = when or _now()
        if self.as_json:
            # As received, with the host's time added as a last field.
            body = text[:-1].rstrip()
            joint = ", " if body != "{" else ""
            self.out.write('%s%s"host_time": "%s"}\n' % (body, joint, _stamp(when)))
        else:
            self.out.write("%s  %s\n" % (when.astimezone().strftime("%H:%M:%S.%f")[:-3], words))
        self.out.flush()

    def note(self, words):
        self.err.write("uthctl monitor %s: %s\n" % (_stamp(_now()), words))
        self.err.flush()

    # ---- --poll ----

    def poll_table(self):
        status = self.ask("status")
        if status is None:
            return
        meters = self.ask("meters")
        meters = meters.get("meters") if meters and meters.get("ok") else None
        polled = {"poll": "status", "status": status, "meters": meters}
        self.show(table_line(status, meters), json.dumps(polled))

    def ask(self, cmd):
        # One command's reply; what comes before it is shown as it comes.
        self.asked += 1
        number = "monitor-%d" % self.asked
        self.link.write(json.dumps({"cmd": cmd, "id": number}).encode() + b"\r\n")
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            line = self.link.read_line(timeout=0.1)
            if line is None:
                continue
            message = _parse(line.decode("utf-8", "replace").strip())
            if message is not None and message.get("id") == number:
                return message
            self.take(line)
        self.note("poll: no reply to %s within %.1f s" % (cmd, self.timeout))
        return None


def _parse(text):
    try:
        message = json.loads(text)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
