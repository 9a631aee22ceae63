# The processes the floor's demo and tests start (brokers, databases, the
# floor service, bridges) end with the process that started them, however
# it ends: a test run killed at a time limit, a demo killed, leaves nothing
# behind. Linux's parent-death signal, armed as the boards' is
# (uthctl/boards/parent_death.py).
import concurrent.futures
import functools
import subprocess

from uthctl.boards.supervisor import spawn_with_parent_death

# Linux sends the signal when the *thread* that started the process ends, so
# every process is started from this one thread, which lasts as long as the
# process: a broker or bridge restarted from a test's own thread (the soak's
# blows) would otherwise die when that thread did.
_STARTER = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ending-with-us")


def ending_with_us(argv, user=None, **popen):
    # subprocess.Popen(argv, **popen), killed (SIGKILL) when this process
    # dies. argv[0] a path (it is exec'd as given). Run as another user
    # (PostgreSQL's, under root), the signal must be armed after the change
    # of user, which clears it: by util-linux's setpriv run as that user,
    # since this interpreter may lie where that user cannot run it.
    if user is None:
        start = functools.partial(spawn_with_parent_death, argv, **popen)
    else:
        start = functools.partial(subprocess.Popen, ["setpriv", "--pdeathsig", "KILL", "--"]
                                  + list(argv), user=user, **popen)
    return _STARTER.submit(start).result()
