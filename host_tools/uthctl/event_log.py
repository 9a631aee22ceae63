# What the long-running services (uthctl floor, uthctl bridge) say as they
# run, through the standard `logging`: the code names a logger under
# "uthctl" and says one event at a time; the command that runs the service
# puts one handler on "uthctl" (to_stderr), whose lines carry the date and
# time in UTC to the millisecond and the logger's name, one event a line
# (a line end inside a message is written as \n), so a log read a month
# later still says when. Under systemd the journal keeps stderr.
import contextlib
import logging
import sys
import time

ROOT = "uthctl"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class OneLine(logging.Formatter):
    # 2026-12-03T16:56:10.123Z INFO uthctl.bridge.3: board on /dev/ttyACM0 answers
    converter = time.gmtime

    def __init__(self):
        super().__init__(FORMAT)

    def formatTime(self, record, datefmt=None):
        return "%s.%03dZ" % (time.strftime("%Y-%m-%dT%H:%M:%S", self.converter(record.created)),
                             record.msecs)

    def format(self, record):
        return super().format(record).replace("\r", "\\r").replace("\n", "\\n")


def logger(*names):
    # logger("bridge", "3") is "uthctl.bridge.3".
    return logging.getLogger(".".join((ROOT,) + names))


@contextlib.contextmanager
def to_stderr(stream=None, level=logging.INFO):
    # While a service runs: uthctl's events at `level` and above to stderr,
    # one line each; the handler is taken off again when it ends.
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(OneLine())
    top = logging.getLogger(ROOT)
    before = top.level
    top.addHandler(handler)
    top.setLevel(level)
    try:
        yield handler
    finally:
        top.removeHandler(handler)
        top.setLevel(before)
