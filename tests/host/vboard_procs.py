# The virtual board's interpreter processes, as the kernel lists them: the
# power-cut, kill and fuzz tests kill them, check that none restarted, or
# that none outlived its board.
import os
from pathlib import Path


def interpreter_pids(flash):
    # Live micropython children of this process (the supervisor's thread
    # spawns them) running on this flash image.
    marker = ("UTH_SIM_FLASH=%s" % flash).encode()
    found = []
    for task in Path("/proc/%d/task" % os.getpid()).iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for pid in map(int, children):
            try:
                stat = Path("/proc/%d/stat" % pid).read_text()
                environ = Path("/proc/%d/environ" % pid).read_bytes().split(b"\0")
            except OSError:
                continue
            if stat.rpartition(")")[2].split()[0] != "Z" and marker in environ:
                found.append(pid)
    return found


def alive(pid):
    # Running, not a zombie waiting to be reaped.
    try:
        stat = Path("/proc/%d/stat" % pid).read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def image_holders(flash, besides=()):
    # Every process of any parent with the flash image open: an interpreter
    # its supervisor left behind is found too. Not this process nor those in
    # besides: a supervisor holds its image open for its lock.
    target = os.path.realpath(flash)
    found = []
    skip = {os.getpid(), *besides}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) in skip:
            continue
        if target in _open_files(proc):
            found.append(int(proc.name))
    return found


def _open_files(proc):
    try:
        fds = list((proc / "fd").iterdir())
    except OSError:
        return []  # gone meanwhile, or not ours to read
    files = []
    for fd in fds:
        try:
            files.append(os.readlink(fd))
        except OSError:
            pass  # closed meanwhile
    return files
