# A build step of minutes run with its output into a log, and a line every
# PROGRESS_EVERY_S on the screen naming the step, the build's last percentage
# (cmake's "[ 42%]") and the time so far. The line comes on the clock, not on
# the build's output: one long compile prints nothing for minutes, and a
# silent screen then looks like a hung one.
import re
import subprocess
import threading
import time

PROGRESS_EVERY_S = 15.0
_PERCENT = re.compile(rb"^\[\s*(\d+)%\]")


class StepFailed(Exception):
    def __init__(self, command, returncode):
        super().__init__("%s exited %d" % (command[0], returncode))
        self.returncode = returncode


def run_logged(command, env, out, say=None, step=None):
    # out: the log, open for binary writing. StepFailed if the command fails.
    command = [str(part) for part in command]
    out.write(b"$ " + " ".join(command).encode() + b"\n")
    out.flush()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    progress = {"percent": None}
    ended = threading.Event()
    ticker = None
    if say is not None:
        ticker = threading.Thread(target=_tick, args=(say, step, progress, ended), daemon=True)
        ticker.start()
    try:
        for line in process.stdout:
            out.write(line)
            found = _PERCENT.match(line)
            if found:
                progress["percent"] = int(found.group(1))
        returncode = process.wait()
    finally:
        ended.set()
        if ticker is not None:
            ticker.join()
    if returncode:
        raise StepFailed(command, returncode)


def _tick(say, step, progress, ended):
    started = time.monotonic()
    while not ended.wait(PROGRESS_EVERY_S):
        percent = progress["percent"]
        say("  %s: %s, %d s so far" % (step, "working" if percent is None else "%d%%" % percent,
                                        time.monotonic() - started))
