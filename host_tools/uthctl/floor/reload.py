# After add-table, the broker must read its password file and ACL again.
# Mosquitto does on SIGHUP; the configuration broker-config writes has it
# keep its pid in the floor's folder (mosquitto.pid), so the broker that
# folder configured is reloaded here, and anything else is said in one line.
import os
import signal
from pathlib import Path


def reload_broker(accounts):
    # What was done, or what to run, in one line.
    pid = _live_mosquitto(accounts.pid_file)
    if pid is None:
        # No broker of this folder's running: the one started later reads the accounts then.
        return ("no Mosquitto of this floor is running (none in %s): the broker reads the "
                "new account when it starts; a broker already running elsewhere needs a "
                "reload (`kill -HUP` for Mosquitto, a restart of `uthctl floor "
                "--embedded-broker`)" % accounts.pid_file)
    try:
        os.kill(pid, signal.SIGHUP)
    except PermissionError:  # a broker run as another user
        return ("reload the broker so it takes the new account: `sudo kill -HUP %d` "
                "(Mosquitto, another user's)" % pid)
    return "Mosquitto (pid %d) reloaded its password file and ACL" % pid


def _live_mosquitto(pid_file):
    # The pid in the file, when it names a running mosquitto (a stale file's
    # pid may since belong to another program, which must get no signal).
    try:
        pid = int(Path(pid_file).read_text().strip())
        name = Path("/proc/%d/comm" % pid).read_text().strip()
    except (OSError, ValueError):
        return None
    return pid if name == "mosquitto" else None
