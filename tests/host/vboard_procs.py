# The virtual board's interpreter processes, as the kernel lists them: the
# power-cut and fuzz tests kill them or check that none restarted.
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
