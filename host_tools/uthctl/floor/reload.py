# After add-table, the broker must read its password file and ACL again.
# Mosquitto does on SIGHUP; the configuration broker-config writes has it
# keep its pid in the floor's folder (broker/mosquitto.pid), so the broker that
# folder configured is reloaded here, and anything else is said in one line.
# A configuration that runs the broker as root (an older broker-config wrote
# `user root`) is warned of at each add-table, until it is written again.
import os
import signal
from pathlib import Path


def reload_broker(accounts):
    # What was done, or what to run, in one line.
    return _reload(accounts) + _as_root(accounts.folder / "mosquitto.conf")


def _as_root(config):
    try:
        lines = Path(config).read_text().splitlines()
    except OSError:
        return ""
    if "user root" not in (line.strip() for line in lines):
        return ""
    return ("; warning: %s runs the broker as root (`user root`): write it again with "
            "`uthctl floor broker-config` and restart the broker" % config)


def _reload(accounts):
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
