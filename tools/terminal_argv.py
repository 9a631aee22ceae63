# The command that runs uthctl as a terminal starts it: Ctrl-C (SIGINT) at
# its default and not blocked. A run started in the background by a
# non-interactive shell (a CI job, `make test &`) passes its children SIGINT
# ignored, and Python then never turns one into KeyboardInterrupt: a test
# that stops a bridge or a monitor with Ctrl-C would wait on a process that
# never heard it.
import sys

UTHCTL_AS_FROM_A_TERMINAL = [
    sys.executable, "-c",
    "import signal, sys; "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "from uthctl.cli import main; sys.exit(main(sys.argv[1:]))"]
