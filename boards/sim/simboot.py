# What the virtual board does at power-on, before main.py, as a board's
# _boot.py does: its flash at /, and machine.reset(). It imports nothing from
# the firmware, so it runs on a virtual board that has no firmware yet.
#
#   flash   a littlefs image in a file (UTH_SIM_FLASH) mounted at / in place
#           of the host's filesystem, the working folder; made and formatted
#           only when the file does not exist yet, never reformatted. An
#           image that does not mount leaves / a flash that fails every file
#           operation with the reason (DeadFlash): the store faults with it,
#           as on a board whose flash is bad. The host folders on sys.path
#           (the firmware when the supervisor lends it, this board's folder)
#           stay reachable read-only at /.host_firmware and /.host_sim, as
#           a board carries frozen modules; /lib on the flash comes after
#           them, as on a board.
#           A package imported before the swap would keep a host path that
#           no longer exists, so boot() runs first (the supervisor's boot line)
#           and mount() refuses otherwise.
#   reset   machine.reset() exits the interpreter with HARD_RESET_EXIT; the
#           supervisor restarts it as a power cycle (main.py runs)
#   clock   machine.RTC, as a board's: datetime() reads and sets the board's
#           clock as (year, month, day, weekday, hours, minutes, seconds,
#           subseconds); `time` follows it as on a board: time(), time_ns(),
#           gmtime(), localtime() (the same: a board has no time zone) and
#           mktime(). Until set it is the host's clock, in UTC. The offset
#           from the host's clock is kept in a host file (UTH_SIM_RTC, the
#           supervisor's) so it outlives resets and power cuts, as a
#           battery-backed RTC's time does, for the supervisor's life.
import errno
import os
import sys
import time as _host_time  # taken before the board's clock takes the name

from micropython import const

BLOCK_SIZE = const(4096)
BLOCK_COUNT = const(128)  # 512 KB
MOUNT = "/"
HOST_PREFIX = "/.host_"  # + the lent folder's name
FLASH_ENV = "UTH_SIM_FLASH"
RTC_ENV = "UTH_SIM_RTC"
DEFAULT_FLASH = "uth_sim_flash.img"
HARD_RESET_EXIT = const(75)  # the supervisor reads it from here (uthctl/boards/board_source.py)

_IOCTL_BLOCK_COUNT = const(4)
_IOCTL_BLOCK_SIZE = const(5)
_IOCTL_BLOCK_ERASE = const(6)


class FileFlash:
    # A block device over an image file. The methods allocate nothing: the
    # file is unbuffered, seek and readinto/write take the caller's buffer.
    def __init__(self, path, block_size=BLOCK_SIZE):
        self.file = open(path, "r+b")
        self.block_size = block_size
        self.block_count = os.stat(path)[6] // block_size
        self.blank = b"\xff" * block_size

    def readblocks(self, block, buf, offset=0):
        self.file.seek(block * self.block_size + offset)
        self.file.readinto(buf)

    def writeblocks(self, block, buf, offset=0):
        self.file.seek(block * self.block_size + offset)
        self.file.write(buf)

    def ioctl(self, op, arg):
        if op == _IOCTL_BLOCK_COUNT:
            return self.block_count
        if op == _IOCTL_BLOCK_SIZE:
            return self.block_size
        if op == _IOCTL_BLOCK_ERASE:
            self.file.seek(arg * self.block_size)
            self.file.write(self.blank)
        return 0  # init, deinit, sync (writes are unbuffered) and erase


def new_image(path):
    # Blank and format under a temporary name, then rename: a power cut
    # while the image is made never leaves a half-made one under `path`.
    tmp = path + ".new"
    blank = b"\xff" * BLOCK_SIZE
    with open(tmp, "wb") as f:
        for _ in range(BLOCK_COUNT):
            f.write(blank)
    device = FileFlash(tmp)
    os.VfsLfs2.mkfs(device)
    device.file.close()
    os.rename(tmp, path)


class DeadFlash:
    # What / is on a board whose flash does not mount: every file operation
    # fails with the reason. Imports still find the lent firmware.
    def __init__(self, reason):
        self.reason = reason

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def chdir(self, path):
        pass

    def getcwd(self):
        return ""

    def _refuse(self, *args):
        raise OSError(self.reason)

    open = ilistdir = stat = statvfs = mkdir = remove = rename = rmdir = _refuse


def _open_flash(path):
    # The mounted filesystem and its device, or a DeadFlash and None.
    try:
        try:
            os.stat(path)
        except OSError:
            new_image(path)  # no image yet: this board's first power-on
        device = FileFlash(path)  # opened while the host's filesystem is still at /
        return os.VfsLfs2(device), device
    except OSError as error:
        # Never reformat: the meters on it may be the only record.
        return DeadFlash("flash image %s does not mount (%s); it is never reformatted"
                         % (path, _error_name(error))), None


def _error_name(error):
    code = error.errno
    if not isinstance(code, int):
        return str(error)
    return errno.errorcode.get(code) or "errno %d" % code


_flash = None


def _refuse_loaded_packages(lent):
    for name, module in sys.modules.items():
        if hasattr(module, "__path__") and any(
                getattr(module, "__file__", "").startswith(d) for d in lent):
            raise RuntimeError("package %s was imported before the flash was mounted; "
                               "boot it first (import simboot; simboot.boot())" % name)


def mount():
    # The board's filesystem at /, the working folder, in place of the host's;
    # idempotent within one interpreter run.
    global _flash
    if _flash is not None:
        return
    flash, device = _open_flash(os.getenv(FLASH_ENV) or DEFAULT_FLASH)
    lent = [p for p in sys.path if p.startswith("/")]  # the firmware, this board's folder
    _refuse_loaded_packages(lent)
    os.umount("/")
    os.mount(flash, MOUNT)
    for host_dir in lent:
        point = HOST_PREFIX + host_dir.rstrip("/").split("/")[-1]
        os.mount(os.VfsPosix(host_dir), point, readonly=True)
        sys.path[sys.path.index(host_dir)] = point
    sys.path.append("/lib")
    _flash = device or flash
    os.chdir(MOUNT)


# ---- the clock ----


def _days(year, month, day):
    # Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    y = year - (1 if month <= 2 else 0)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


class Clock:
    # The board's clock: the host's plus an offset in seconds, kept in a host
    # file opened before the flash takes / (None: kept in memory only).
    def __init__(self, path):
        self.offset = 0
        self.file = None
        if not path:
            return
        try:
            with open(path) as f:
                self.offset = int(f.read().strip() or "0")
        except (OSError, ValueError):
            pass  # never set
        try:
            self.file = open(path, "w")
        except OSError:
            return  # the clock still runs; a reset forgets its setting
        self._save()

    def _save(self):
        if self.file is not None:
            self.file.seek(0)
            self.file.write("%+021d\n" % self.offset)  # one width: no truncation needed

    def seconds(self):
        return int(_host_time.time()) + self.offset

    def set(self, seconds):
        self.offset = seconds - int(_host_time.time())
        self._save()


def mktime(t):
    # Seconds since 1970 of (year, month, day, hours, minutes, seconds, ...), UTC.
    return _days(t[0], t[1], t[2]) * 86400 + t[3] * 3600 + t[4] * 60 + t[5]


class RTC:
    # machine.RTC: datetime() -> (year, month, day, weekday 0=Monday, hours,
    # minutes, seconds, subseconds 0); datetime(that tuple) sets the clock
    # (weekday and subseconds ignored, as a board does).
    def __init__(self, *args):
        pass

    def datetime(self, when=None):
        if when is None:
            t = _host_time.gmtime(_clock.seconds())
            return (t[0], t[1], t[2], t[6], t[3], t[4], t[5], 0)
        _clock.set(mktime((when[0], when[1], when[2], when[4], when[5], when[6])))
        return None


class _Time:
    # The unix port's time module with the board's clock in place of the host's.
    def __init__(self):
        for name in dir(_host_time):
            if not name.startswith("__") and not hasattr(_Time, name):
                setattr(self, name, getattr(_host_time, name))

    def time(self):
        return _clock.seconds()

    def time_ns(self):
        return _host_time.time_ns() + _clock.offset * 1_000_000_000

    def gmtime(self, secs=None):
        return _host_time.gmtime(_clock.seconds() if secs is None else secs)

    localtime = gmtime

    def mktime(self, t):
        return mktime(t)


_clock = None


class _Machine:
    # The unix port's machine module plus reset(): the interpreter exits with
    # HARD_RESET_EXIT and the supervisor powers the board off and on, so
    # `mpremote reset` restarts the firmware as on a board; and RTC.
    RTC = RTC

    def __getattr__(self, name):
        import umachine

        return getattr(umachine, name)

    def reset(self):
        sys.exit(HARD_RESET_EXIT)


def boot():
    # Idempotent within one interpreter run.
    global _clock
    if _clock is None:
        _clock = Clock(os.getenv(RTC_ENV))  # a host file: before the flash takes /
    mount()
    if not isinstance(sys.modules.get("machine"), _Machine):
        sys.modules["machine"] = _Machine()
    if not isinstance(sys.modules.get("time"), _Time):
        sys.modules["time"] = _Time()
