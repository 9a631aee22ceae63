# python -I -S parent_death.py PARENT_PID PROGRAM [ARG...]: becomes PROGRAM,
# set to be killed (SIGKILL) when the thread that spawned it ends, however
# that thread's process dies (Linux's parent-death signal, kept across exec).
#
# This is the step a subprocess preexec_fn would do between fork and exec;
# CPython documents preexec_fn as unsafe in a process with threads (the child
# may deadlock on a lock another thread held at the fork), and a supervisor
# has threads. Here it runs in a fresh interpreter of its own instead, which
# imports nothing but the standard library.
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _set_parent_death_signal():
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit():
        sys.stderr.write("usage: parent_death.py PARENT_PID PROGRAM [ARG...]\n")
        return 2
    parent, program = int(argv[1]), argv[2:]
    _set_parent_death_signal()
    if os.getppid() != parent:
        # The parent died before the signal was armed: nothing would ever
        # send it, so end now, as the signal would have.
        os.kill(os.getpid(), signal.SIGKILL)
    try:
        os.execv(program[0], program)
    except OSError as error:
        sys.stderr.write("cannot run %s: %s\n" % (program[0], error.strerror))
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv))
