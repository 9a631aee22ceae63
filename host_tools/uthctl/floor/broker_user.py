# Who the floor's Mosquitto runs as, and that it can read what it must.
# Started as root, Mosquitto drops to its configuration's `user` before it
# reads its password file, ACL and TLS key and before it writes its pid file
# (2.0.11 does so, tests/floor/test_broker_user.py checks it), so those are
# shared with that user's group alone (mode 640, owner unchanged) and the pid
# goes into a folder of the user's own. Root is refused: a broker facing the
# network holds no more rights than it needs.
import grp
import os
import pwd
from pathlib import Path

from .errors import FloorConfigError

DEBIAN_USER = "mosquitto"  # made by Debian's mosquitto package
SHARED_MODE = 0o640  # the owner writes, the broker's group reads, no one else


def default_user(folder):
    # Run as root: Debian's mosquitto where it exists, else the floor
    # folder's owner. Run as the folder's owner (deploy/systemd's unit starts
    # Mosquitto as that user, which then drops nothing): that owner.
    if os.geteuid() == 0:
        try:
            return pwd.getpwnam(DEBIAN_USER).pw_name
        except KeyError:
            pass
    return pwd.getpwuid(Path(folder).stat().st_uid).pw_name


def checked(user):
    # The user's passwd entry; refused when unknown or root.
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise FloorConfigError("no user %r on this host to run the broker as" % user) from None
    if entry.pw_uid == 0:
        raise FloorConfigError("the broker would run as root (user %s): a broker that faces the "
                               "network gets no more rights than it needs; install Debian's "
                               "mosquitto (its user `mosquitto`), or give --user a user of its own"
                               % user)
    return entry


def group_for(user):
    # The group a broker file is shared with: None when this process is the
    # broker's user itself (its files stay its own, mode 600).
    entry = checked(user)
    return None if entry.pw_uid == os.geteuid() else entry.pw_gid


def pid_folder(folder, user):
    # A folder the broker writes its pid into, its user's alone.
    entry = checked(user)
    path = Path(folder) / "broker"
    path.mkdir(mode=0o700, exist_ok=True)
    if entry.pw_uid != os.geteuid():
        os.chown(path, entry.pw_uid, entry.pw_gid)
    os.chmod(path, 0o700)
    return path


def refuse_unreadable(user, paths):
    # Each file the broker must read, readable by it through every folder
    # above it; otherwise it would fail at start with a vaguer error.
    entry = checked(user)
    groups = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if user in g.gr_mem}
    for path in paths:
        path = Path(path).resolve()
        for folder in reversed(path.parents):
            if not _allows(folder.stat(), entry.pw_uid, groups, 0o1):
                raise FloorConfigError("the broker's user %s cannot reach %s: %s is closed to it "
                                       "(keep the floor folder where %s may pass, e.g. chmod o+x "
                                       "%s)" % (user, path, folder, user, folder))
        if not _allows(path.stat(), entry.pw_uid, groups, 0o4):
            raise FloorConfigError("the broker's user %s cannot read %s (chgrp %s and chmod "
                                   "640 it)" % (user, path, grp.getgrgid(entry.pw_gid).gr_name))


def _allows(stat, uid, groups, bit):
    if stat.st_uid == uid:
        return bool(stat.st_mode & (bit << 6))
    if stat.st_gid in groups:
        return bool(stat.st_mode & (bit << 3))
    return bool(stat.st_mode & bit)
