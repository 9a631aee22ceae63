# A board's flash image on the host: a file for the owner only, one
# supervisor at a time.
#
# The flash image holds the live hit value: it and any folder made for it are
# for the owner only (0600, 0700); a missing image is made (as the board's boot
# would) under umask 077, so it is never readable by others, not even while it
# is made. Only a file that is a littlefs image has its mode changed: a path
# mistyped onto another file leaves it as it was. One supervisor at a time
# runs a board on an image: it holds an exclusive flock on the image file
# itself (its inode, whatever name or hard link reaches it) for its life (the
# kernel releases it however the supervisor dies), and a second start raises
# FlashInUse naming the holder (found in /proc/locks).
import fcntl
import os
import stat
from pathlib import Path

from .board_source import constant

LITTLEFS_MAGIC = b"littlefs"
FLASH_BLOCK = constant("BLOCK_SIZE")  # the virtual board's (boards/sim/simboot.py)


class FlashInUse(OSError):
    # Another supervisor runs a board on this flash image.
    pass


def state_folder():
    # Where uthctl keeps its boards' images unless told otherwise.
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(state) / "uthctl"


def make_folders(folder):
    # Each folder that does not exist yet, for the owner only.
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir(mode=0o700)
        os.chmod(path, 0o700)


def is_littlefs(fd):
    # littlefs keeps its superblock in block 0 and in block 1 (two copies, one
    # of which may be mid-rewrite): a revision count, a tag, then "littlefs".
    return any(os.pread(fd, 8, block * FLASH_BLOCK + 8) == LITTLEFS_MAGIC for block in (0, 1))


def _lock_holder(fd):
    # "process PID (COMMAND)" holding the flock on fd's file, from /proc/locks
    # (its lines: "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF").
    info = os.fstat(fd)
    inode = "%02x:%02x:%d" % (os.major(info.st_dev), os.minor(info.st_dev), info.st_ino)
    pid = None
    try:
        with open("/proc/locks") as locks:
            for words in map(str.split, locks):
                if "FLOCK" in words and "->" not in words and inode in words:
                    pid = int(words[words.index(inode) - 1])
                    break
    except (OSError, ValueError):
        pass
    if not pid:
        return "another process"
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            words = [w.decode(errors="replace") for w in f.read().split(b"\0") if w]
    except OSError:
        words = []
    command = " ".join([Path(words[0]).name] + words[1:]) if words else ""
    if len(command) > 120:
        command = command[:117] + "..."
    return "process %d (%s)" % (pid, command) if command else "process %d" % pid


def _open_image(flash):
    # The image itself, never what a symbolic link put in its place points to,
    # nor a device or pipe (opening one can block, or act on a device).
    try:
        info = os.lstat(flash)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(info.st_mode):
        raise OSError("flash %s is a folder; give an image file (made when missing)" % flash)
    if stat.S_ISLNK(info.st_mode):
        raise OSError("flash %s is a symbolic link; give the image file itself" % flash)
    if not stat.S_ISREG(info.st_mode):
        raise OSError("flash %s is not a regular file; give an image file (made when "
                      "missing)" % flash)
    try:
        fd = os.open(flash, os.O_RDONLY | os.O_NOFOLLOW | os.O_NOCTTY | os.O_NONBLOCK
                     | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise OSError("cannot use flash image %s: %s" % (flash, error.strerror)) from None
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (
            info.st_dev, info.st_ino):
        os.close(fd)
        raise OSError("flash %s changed while it was opened; try again" % flash)
    return fd


def _same_file(fd, flash):
    try:
        now = os.stat(flash, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def take_flash(flash, make=None):
    # The image's lock, held until the descriptor returned is closed: an
    # exclusive flock on the image file itself, so every name it has (a hard
    # link too) finds it taken, and no file is left beside it. A missing image
    # is first made by make(path), one maker at a time (a flock on its folder
    # meanwhile); without make, a missing image is an error. Only an image
    # (littlefs) is set to the owner's only: any other file keeps its mode.
    for _ in range(3):
        fd = _open_image(flash)
        if fd is None:
            if make is None:
                raise OSError("no flash image %s" % flash)
            _make_image(flash, make)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _lock_holder(fd)
            os.close(fd)
            raise FlashInUse("flash image %s is in use by %s; stop that board first, or give "
                             "another --flash" % (flash, holder)) from None
        if not _same_file(fd, flash):
            os.close(fd)  # replaced or removed meanwhile: lock what is there now
            continue
        if is_littlefs(fd):
            # Made before this rule, or copied in: nobody else's from now on (an
            # image its owner made read-only stays so).
            os.fchmod(fd, stat.S_IMODE(os.fstat(fd).st_mode) & 0o700)
        return fd
    raise OSError("flash image %s keeps changing; is another program replacing it?" % flash)


def _make_image(flash, make):
    folder = os.open(flash.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # a maker at a time; brief
        if os.path.lexists(flash):
            return  # made meanwhile
        # A half-made image left by a cut is made again, not followed if a link.
        half = Path(str(flash) + ".new")
        if half.is_symlink() or half.is_file():
            half.unlink()
        make(flash)
    finally:
        os.close(folder)


def prepare_folder(flash, default):
    # The folder the image goes in, made for the owner only; uthctl's own
    # default folder is kept so.
    if flash.is_dir():
        raise OSError("flash %s is a folder; give an image file (made when missing)" % flash)
    make_folders(flash.parent)
    if flash == Path(default).resolve():
        os.chmod(flash.parent, 0o700)  # uthctl's own folder
