# The virtual board's supervisor: the firmware on the unix-port MicroPython
# behind a pseudo-terminal, with a littlefs image file as its flash
# (boards/sim/board.py) and its pins wired to a loopback socket.
#
#   host (mpremote, pyserial, uthctl) <-> pty B  ==relay==  pty A <-> micropython
#
# The host opens pty B's slave (`serial_path`), which lives as long as the
# supervisor; the interpreter runs on pty A's slave and is restarted whenever
# it exits, as a board soft-resets: "MPY: soft reboot\r\n", then main.py from
# the friendly REPL, or straight back to the raw REPL when the reset came
# from it (mpremote's auto soft-reset). The relay turns the unix port's bare
# "\n" into "\r\n" as a board's console does (not inside the raw REPL, whose
# protocol is binary-clean).
#
# An exit with HARD_RESET_EXIT (machine.reset() on the virtual board) is a
# power cycle instead: input the board had not read is dropped, main.py runs.
#
# Two loopback listeners: `wire` for the board's pin connection (its address
# reaches the board in UTH_SIM_WIRE; protocol in boards/sim/board.py) and
# `rig` for rig clients (rig.py), one JSON object a line each way:
#   {"op": "set", "pin": "bet3", "level": 1}  -> {"ok": true, "applied": BOOL}
#       answered once the board has applied it; "applied": false when no
#       controller reads its pins (no board, or stopped at the REPL): the
#       level is kept and sent when a board connects
#   {"op": "state"} -> {"ok": true, "bet_lights": [6 x 0/1], "jackpot_lights":
#       [6 x 0/1], "display": TEXT or null, "inputs": {pin: level}, "board":
#       wired now, "powered": BOOL, "boots": N, "repl": "friendly" or "raw"}
#   {"op": "power", "on": BOOL}, {"op": "reset"} (off, then on), {"op": "ping"}
#   anything else -> {"ok": false, "error": TEXT}
# The supervisor keeps the pin state: inputs as rigs set them, re-sent when a
# board (re)connects; outputs as the board reports them (all off at power off).
# One thread runs every descriptor through a selector; other threads ask it.
#
# The flash image holds the live hit value: it and any folder made for it are
# for the owner only (0600, 0700); a missing image is made (as the board's boot
# would) under umask 077, so it is never readable by others, not even while it
# is made. Only a file that is a littlefs image has its mode changed: a path
# mistyped onto another file leaves it as it was. One supervisor at a time
# runs a board on an image: it holds an exclusive flock on the image file
# itself (its inode, whatever name or hard link reaches it) for its life (the
# kernel releases it however the supervisor dies), and a second start raises
# FlashInUse naming the holder (found in /proc/locks). The interpreter dies
# with the thread that spawned it, the I/O thread, which lives as long as the
# supervisor (Linux: a parent-death signal, armed by parent_death.py before
# the interpreter is exec'd).
import fcntl
import hashlib
import json
import os
import pty
import re
import selectors
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SEATS = 6
INPUTS = tuple("bet%d" % n for n in range(1, SEATS + 1)) + tuple(
    "uth%d" % n for n in range(1, SEATS + 1)) + ("lock", "key")
# A virtual table starts with every seat's UTH wager in place, so a progressive
# chip alone qualifies; a rig clears uthN to test the rule.
INITIAL_LEVELS = dict({name: 0 for name in INPUTS},
                      **{"uth%d" % n: 1 for n in range(1, SEATS + 1)})
HEAPSIZE = "192K"
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
FRIENDLY_BANNER = b'Type "help()"'
SOFT_REBOOT = b"MPY: soft reboot\r\n"
# As a board's _boot.py: the flash at / before any firmware package loads.
BOOT = "import simboot;simboot.boot()"
MAIN = BOOT + ";import main"  # /main.py if one was copied there, else firmware/

_SYNC_TIMEOUT = 2.0
_HOST_STALL = 1.0  # host not reading this long: output beyond the pty's buffer is dropped
_RAW_SWALLOW = 3.0  # longest wait for the raw REPL banner after a raw soft reset
_QUICK_EXIT = 0.5
HARD_RESET_EXIT = 75  # machine.reset() on the virtual board (boards/sim/simboot.py)
_LINE_MAX = 4096
_BARE_LF = re.compile(rb"(?<!\r)\n")
PARENT_DEATH = Path(__file__).with_name("parent_death.py")
LITTLEFS_MAGIC = b"littlefs"
FLASH_BLOCK = 4096  # boards/sim/simboot.py's BLOCK_SIZE


class FlashInUse(OSError):
    # Another supervisor runs a board on this flash image.
    pass


def spawn_with_parent_death(command, **popen):
    # subprocess.Popen(command, **popen), its process killed when the calling
    # thread ends (Linux). No preexec_fn, unsafe in a process with threads:
    # the process starts as a small Python wrapper (parent_death.py) that
    # arms the signal, checks its parent is still this process, then execs
    # the command.
    wrapped = [sys.executable, "-I", "-S", str(PARENT_DEATH), str(os.getpid())]
    return subprocess.Popen(wrapped + list(command), **popen)


def seeded_bytes(seed):
    # The host's twin of the sim board's TEST-ONLY random source (--test-seed):
    # SHA-256 of "SEED:COUNTER", so a test can foresee the hit values drawn.
    state = {"counter": 0, "pool": b""}

    def take(n):
        while len(state["pool"]) < n:
            text = "%d:%d" % (seed, state["counter"])
            state["pool"] += hashlib.sha256(text.encode()).digest()
            state["counter"] += 1
        out, state["pool"] = state["pool"][:n], state["pool"][n:]
        return out

    return take


def default_flash():
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(state) / "uthctl" / "sim-flash.img"


def _make_folders(folder):
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


def find_micropython():
    # The unix port beside this Python (the project's .venv), else on PATH.
    here = Path(sys.executable).parent / "micropython"
    if here.exists():
        return str(here)
    found = shutil.which("micropython")
    if found is None:
        raise OSError("no micropython (unix port) found; run `make setup`")
    return found


def _write_some(fd, data):
    # Writes what the descriptor takes now and gives back the rest; nothing
    # after an error other than a full buffer (the other end is gone).
    while data:
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            return data
        except OSError:
            return b""
        data = data[written:]
    return data


def _boot_event(line):
    # A "started" or "fault" event line from the controller, else None.
    if not (line.startswith(b"{") and (b'"started"' in line or b'"fault"' in line)):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if isinstance(event, dict) and event.get("ev") in ("started", "fault"):
        return event
    return None


def _nonblocking(fd):
    os.set_blocking(fd, False)


def _listen():
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    return listener


class _Conn:
    # A loopback connection carrying text lines, with an output buffer.
    def __init__(self, sock, kind):
        sock.setblocking(False)
        self.sock = sock
        self.kind = kind  # "board" or "rig"
        self.inbuf = b""
        self.outbuf = b""
        self.closed = False

    def lines(self, data):
        self.inbuf += data
        *lines, self.inbuf = self.inbuf.split(b"\n")
        if len(self.inbuf) > _LINE_MAX:
            raise OSError("line too long")
        return lines

    def send(self, data):
        self.outbuf += data
        self.flush()

    def flush(self):
        if self.closed or not self.outbuf:
            return
        try:
            sent = self.sock.send(self.outbuf)
        except BlockingIOError:
            return
        except OSError:
            self.closed = True
            return
        self.outbuf = self.outbuf[sent:]


class VirtualBoard:
    def __init__(self, flash=None, micropython=None, heapsize=HEAPSIZE, seed=None, repo=REPO,
                 stderr=None, lend_firmware=True):
        self._given = Path(flash or default_flash())
        self.flash = self._given.resolve()
        self.micropython = micropython or find_micropython()
        self.heapsize = heapsize
        self.seed = seed  # TEST ONLY: the board's deterministic random source
        self.repo = Path(repo)
        if not (self.repo / "firmware" / "main.py").is_file():
            raise OSError("no firmware/main.py under %s: the virtual board runs from a "
                          "checkout of the repository" % self.repo)
        self.stderr = stderr  # where supervisor faults are reported, default sys.stderr
        # False: a bare board that runs only what is deployed to its flash
        # (/lib, /main.py), as a board with stock MicroPython and no frozen firmware.
        self.lend_firmware = lend_firmware
        self.serial_path = None
        self.rig_address = None
        self.wire_address = None
        self._flash_lock = None
        self._thread = None
        self._stopping = False
        self._requests = []  # (callable, event, result box) run by the I/O thread
        self._lock = threading.Lock()
        self.failure = None

    # ---- life cycle (any thread) ----

    def start(self, power=True):
        # FlashInUse when another board runs on the image; OSError when the
        # image cannot be used at all (a folder, say).
        self._prepare_flash()
        self._flash_lock = take_flash(self.flash, self._make_image)
        try:
            self._open()
        except BaseException:
            os.close(self._flash_lock)
            self._flash_lock = None
            raise
        if power:
            self.power(True)
        return self

    def _prepare_flash(self):
        if self.flash.is_dir():
            raise OSError("flash %s is a folder; give an image file (made when missing)"
                          % self.flash)
        if self._given.is_symlink() and not self._given.exists():
            raise OSError("flash %s is a symbolic link to nothing; give an image file"
                          % self._given)
        _make_folders(self.flash.parent)
        if self.flash == Path(default_flash()).resolve():
            os.chmod(self.flash.parent, 0o700)  # uthctl's own folder

    def _make_image(self, flash):
        # Blank and formatted as the board's own boot makes it (simboot.py),
        # here so that the supervisor can lock it before any board runs.
        env = dict(os.environ, MICROPYPATH=str(self.repo / "boards" / "sim"))
        done = subprocess.run([self.micropython, "-c", "import simboot;simboot.new_image(%r)"
                               % str(flash)], env=env, umask=0o077, capture_output=True,
                              text=True, timeout=60)
        if done.returncode != 0 or not flash.is_file():
            reason = (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]
            raise OSError("cannot make flash image %s: %s" % (flash, reason))

    def _open(self):
        self._workdir = tempfile.mkdtemp(prefix="uth-vboard-")
        self._master_a, self._slave_a = pty.openpty()
        self._master_b, self._slave_b = pty.openpty()
        for fd in (self._slave_a, self._slave_b):
            tty.setraw(fd)  # no echo, no signals, no newline translation
        for fd in (self._master_a, self._master_b):
            _nonblocking(fd)
        self.serial_path = os.ttyname(self._slave_b)
        self._wire_listener = _listen()
        self._rig_listener = _listen()
        self.wire_address = "127.0.0.1:%d" % self._wire_listener.getsockname()[1]
        self.rig_address = "127.0.0.1:%d" % self._rig_listener.getsockname()[1]
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._reset_state()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._master_a, selectors.EVENT_READ, "board_out")
        self._selector.register(self._master_b, selectors.EVENT_READ, "host_in")
        self._selector.register(self._wire_listener, selectors.EVENT_READ, "wire_accept")
        self._selector.register(self._rig_listener, selectors.EVENT_READ, "rig_accept")
        self._selector.register(self._wake_r, selectors.EVENT_READ, "wake")
        # Every interpreter is spawned from this thread: it dies with it.
        self._thread = threading.Thread(target=self._run, name="vboard", daemon=True)
        self._thread.start()

    def stop(self, timeout=5.0):
        # Kill the interpreter, close every descriptor, let the image go;
        # safe to call twice.
        if self._thread is None:
            return
        self._stopping = True
        self._wake()
        self._thread.join(timeout)
        self._thread = None
        self._kill()
        for conn in list(self._conns):
            conn.sock.close()
        for sock in (self._wire_listener, self._rig_listener, self._wake_r, self._wake_w):
            sock.close()
        self._selector.close()
        for fd in (self._master_a, self._slave_a, self._master_b, self._slave_b):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._workdir, ignore_errors=True)
        os.close(self._flash_lock)
        self._flash_lock = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def alive(self):
        return self._thread is not None and self._thread.is_alive()

    def power(self, on):
        # Power on runs main.py; power off is a cut at any instant.
        return self._call(self._power_on if on else self._power_off)

    def reset(self):
        # A hard reset: power off, then on.
        return self._call(self._hard_reset)

    def state(self):
        return self._call(self._state)

    def wait_started(self, timeout=20.0):
        # How the board came up since its last power-on or reset: {"state":
        # the controller's state from its "started" event ("fault" when the
        # store did not come up), or "repl" when main.py ended at the REPL
        # without starting it; "fault": the reason of a fault event or None}.
        # "state" is None when neither came within timeout.
        deadline = time.monotonic() + timeout
        while True:
            came = self._call(lambda: dict(self._came_up))
            if came["state"] is not None or time.monotonic() > deadline:
                return came
            time.sleep(0.02)

    def _call(self, function, timeout=10.0):
        if not self.alive():
            raise OSError("the virtual board's supervisor is not running (%s)"
                          % (self.failure or "stopped"))
        done = threading.Event()
        box = []
        with self._lock:
            self._requests.append((function, done, box))
        self._wake()
        if not done.wait(timeout):
            raise TimeoutError("virtual board supervisor did not answer")
        if not box:
            raise OSError("the virtual board's supervisor stopped (%s)"
                          % (self.failure or "stopped"))
        ok, value = box[0]
        if not ok:
            raise value
        return value

    def _wake(self):
        try:
            self._wake_w.send(b"!")
        except OSError:
            pass

    # ---- state (I/O thread) ----

    def _reset_state(self):
        self._proc = None
        self._powered = False
        self._raw = False  # the interpreter's REPL is in raw mode
        self._tail = b""  # recent output, to find banners split across reads
        self._after_cr = False
        self._swallow = None  # (deadline, bytes so far) after a raw soft reset
        self._host_out = b""
        self._host_stalled = None
        self._board_in = b""
        self._spawned_at = 0.0
        self._quick_exits = 0
        self._respawn_at = None
        self._respawn_main = True
        self._boots = 0
        self._came_up = {"state": None, "fault": None}
        self._board_line_buf = b""  # the console's last partial line
        self._conns = []
        self._board = None  # the board's wire connection
        self._levels = dict(INITIAL_LEVELS)
        self._lights = {"betlight": [0] * SEATS, "jackpot": [0] * SEATS}
        self._display = None
        self._sync = 0
        self._pending = {}  # sync number -> (rig conn, reply, deadline)

    def _state(self):
        return {"ok": True, "bet_lights": list(self._lights["betlight"]),
                "jackpot_lights": list(self._lights["jackpot"]), "display": self._display,
                "inputs": dict(self._levels), "board": self._board is not None,
                "powered": self._powered, "boots": self._boots,
                "repl": "raw" if self._raw else "friendly",
                "pid": self._proc.pid if self._proc is not None and self._proc.poll() is None
                else None}

    # ---- the interpreter ----

    def _environment(self):
        env = dict(os.environ)
        # As a board's sys.path: the working folder (/), the frozen
        # modules (asyncio), then the firmware (unless bare) and this board's
        # folder; simboot adds /lib on the flash last.
        lent = [self.repo / "firmware"] if self.lend_firmware else []
        env["MICROPYPATH"] = os.pathsep.join(
            [".frozen"] + [str(p) for p in lent + [self.repo / "boards" / "sim"]])
        env["UTH_SIM_FLASH"] = str(self.flash)
        env["UTH_SIM_RTC"] = os.path.join(self._workdir, "rtc")  # the clock outlives a reset
        env["UTH_SIM_WIRE"] = self.wire_address
        env.pop("UTH_SIM_SEED", None)
        if self.seed is not None:
            env["UTH_SIM_SEED"] = str(int(self.seed))
        return env

    def _spawn(self, run_main):
        command = [self.micropython, "-X", "heapsize=" + self.heapsize, "-i", "-c",
                   MAIN if run_main else BOOT]
        # umask 077: an image it makes is the owner's from its first byte.
        self._proc = spawn_with_parent_death(
            command, stdin=self._slave_a, stdout=self._slave_a, stderr=self._slave_a,
            cwd=self._workdir, env=self._environment(), close_fds=True,
            start_new_session=True, umask=0o077)
        self._spawned_at = time.monotonic()
        self._boots += 1
        self._raw = False
        self._tail = b""
        if not run_main:
            # Back into the raw REPL, as a board that soft-resets from it;
            # its friendly banner is not shown (a board prints none there).
            self._board_in = b"\x01" + self._board_in
            self._swallow = (time.monotonic() + _RAW_SWALLOW, b"")
            self._feed_board()

    def _kill(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            pass

    def _power_on(self):
        if self._powered:
            return False
        self._powered = True
        self._came_up = {"state": None, "fault": None}
        self._board_line_buf = b""
        self._quick_exits = 0
        self._spawn(run_main=True)
        return True

    def _power_off(self):
        self._kill()
        termios.tcflush(self._slave_a, termios.TCIFLUSH)  # what the board had not read
        self._powered = False
        self._respawn_at = None
        self._raw = False
        self._swallow = None
        self._board_in = b""
        self._lights = {"betlight": [0] * SEATS, "jackpot": [0] * SEATS}
        self._display = None
        self._drop_board()
        return True

    def _hard_reset(self):
        self._power_off()
        return self._power_on()

    def _check_exit(self):
        if self._proc is None or self._proc.poll() is None:
            return
        self._read_board(drain=True)
        lasted = time.monotonic() - self._spawned_at
        code, self._proc = self._proc.returncode, None
        if code == HARD_RESET_EXIT:
            self._hard_reset()
            return
        # A soft reset: the same mode the REPL was in (main.py from friendly).
        self._quick_exits = self._quick_exits + 1 if lasted < _QUICK_EXIT else 0
        delay = 1.0 if self._quick_exits >= 3 else 0.0  # a crash loop, not resets
        self._respawn_main = not self._raw
        self._respawn_at = time.monotonic() + delay
        self._to_host(SOFT_REBOOT)

    def _check_respawn(self):
        if self._respawn_at is not None and time.monotonic() >= self._respawn_at:
            self._respawn_at = None
            if self._powered:
                self._spawn(self._respawn_main)

    # ---- the serial relay ----

    def _read_board(self, drain=False):
        while True:
            try:
                data = os.read(self._master_a, 4096)
            except (BlockingIOError, OSError):
                return
            if not data:
                return
            self._from_board(data)
            if not drain:
                return

    def _from_board(self, data):
        if self._swallow is not None:
            deadline, held = self._swallow
            held += data
            start = held.find(RAW_BANNER)
            if start < 0 and time.monotonic() < deadline:
                self._swallow = (deadline, held[-4096:])
                return
            self._swallow = None
            if start >= 0:
                before = held[:start]  # boot errors are shown; the friendly banner is not
                banner = before.find(b"MicroPython ")
                data = (before[:banner] if banner >= 0 else before) + held[start:]
            else:
                data = held
        was_raw = self._track_mode(data)
        if not (was_raw and self._raw):
            data = self._crlf(data)
            self._watch_start(data)
        else:
            self._after_cr = data.endswith(b"\r")
        self._to_host(data)

    def _watch_start(self, data):
        # The controller's first "started" (and any "fault" before it) since
        # the power came on, as the host reads them; or the REPL instead.
        if self._came_up["state"] is not None:
            return
        *lines, self._board_line_buf = (self._board_line_buf + data).split(b"\n")
        self._board_line_buf = self._board_line_buf[-_LINE_MAX:]
        for line in lines:
            event = _boot_event(line)
            if event is None:
                continue
            if event["ev"] == "fault":
                self._came_up["fault"] = event.get("reason")
            else:
                self._came_up["state"] = event.get("state")
                return
        if any(FRIENDLY_BANNER in line for line in lines + [self._board_line_buf]):
            self._came_up["state"] = "repl"  # main.py ended without a controller

    def _track_mode(self, data):
        # Which REPL the interpreter shows, from its banners; returns the old mode.
        was_raw = self._raw
        window = self._tail + data
        raw_at = window.rfind(RAW_BANNER)
        friendly_at = window.rfind(FRIENDLY_BANNER)
        if raw_at >= 0 or friendly_at >= 0:
            self._raw = raw_at > friendly_at
        self._tail = window[-64:]
        return was_raw

    def _crlf(self, data):
        if self._after_cr and data.startswith(b"\n"):
            data = data[1:]
            head = b"\n"
        else:
            head = b""
        self._after_cr = data.endswith(b"\r") if data else self._after_cr
        return head + _BARE_LF.sub(b"\r\n", data)

    def _to_host(self, data):
        self._host_out += data
        self._flush_host()

    def _flush_host(self):
        self._host_out = _write_some(self._master_b, self._host_out)
        if not self._host_out:
            self._host_stalled = None
        elif self._host_stalled is None:
            self._host_stalled = time.monotonic()
        elif time.monotonic() - self._host_stalled > _HOST_STALL:
            self._host_out = b""  # nobody reads: dropped, as a board's USB does
            self._host_stalled = None

    def _read_host(self):
        try:
            data = os.read(self._master_b, 4096)
        except (BlockingIOError, OSError):
            return
        if data and self._powered:
            self._board_in += data
            self._feed_board()

    def _feed_board(self):
        self._board_in = _write_some(self._master_a, self._board_in)

    # ---- pins ----

    def _accept(self, listener, kind):
        try:
            sock, _ = listener.accept()
        except BlockingIOError:
            return
        # Pin changes are tiny lines: Nagle's delay would hold each one ~40 ms.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = _Conn(sock, kind)
        if kind == "board":
            self._drop_board()
            self._board = conn
        self._conns.append(conn)
        self._selector.register(sock, selectors.EVENT_READ, conn)

    def _drop_board(self):
        if self._board is not None:
            self._close(self._board)

    def _close(self, conn):
        if conn in self._conns:
            self._conns.remove(conn)
            self._selector.unregister(conn.sock)
        conn.sock.close()
        conn.closed = True
        if conn is self._board:
            self._board = None
            for number in list(self._pending):
                rig, reply, _ = self._pending.pop(number)
                self._reply(rig, dict(reply, applied=False))

    def _read_conn(self, conn):
        try:
            data = conn.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._close(conn)
            return
        try:
            lines = conn.lines(data)
        except OSError:
            self._close(conn)
            return
        for line in lines:
            if conn.kind == "board":
                self._board_line(line.decode(errors="replace"))
            else:
                self._rig_line(conn, line)

    def _board_line(self, line):
        name, _, value = line.partition(" ")
        if name == "hello":
            levels = "".join("%s %d\n" % item for item in self._levels.items())
            self._board.send((levels + "ready\n").encode())
        elif name == "display":
            self._display = value
        elif name == "sync":
            entry = self._pending.pop(int(value), None) if value.isdigit() else None
            if entry is not None:
                self._reply(entry[0], entry[1])
        else:
            for kind, lights in self._lights.items():
                if name.startswith(kind) and name[len(kind):].isdigit():
                    seat = int(name[len(kind):])
                    if 1 <= seat <= SEATS:
                        lights[seat - 1] = 1 if value == "1" else 0

    def _reply(self, conn, reply):
        if not conn.closed:
            conn.send(json.dumps(reply).encode() + b"\n")

    def _rig_line(self, conn, line):
        if not line.strip():
            return
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            self._rig_request(conn, request)
        except (ValueError, TypeError, KeyError) as error:
            self._reply(conn, {"ok": False, "error": str(error)})

    def _rig_request(self, conn, request):
        op = request.get("op")
        if op == "state":
            self._reply(conn, self._state())
        elif op == "ping":
            self._reply(conn, {"ok": True, "reply": "pong"})
        elif op == "set":
            self._set(conn, request["pin"], request["level"])
        elif op == "power":
            self._reply(conn, {"ok": True, "changed": self._power_on() if request["on"]
                               else self._power_off()})
        elif op == "reset":
            self._reply(conn, {"ok": True, "changed": self._hard_reset()})
        else:
            raise ValueError("unknown op %r (state, set, power, reset, ping)" % (op,))

    def _set(self, conn, pin, level):
        if pin not in INPUTS:
            raise ValueError("unknown input %r (one of %s)" % (pin, " ".join(INPUTS)))
        if level not in (0, 1, True, False):
            raise ValueError("level must be 0 or 1")
        self._levels[pin] = int(level)
        reply = {"ok": True, "pin": pin, "level": int(level), "applied": True}
        if self._board is None:
            self._reply(conn, dict(reply, applied=False))
            return
        # Answered when the board echoes the sync: its next tick sees the level.
        self._sync += 1
        self._pending[self._sync] = (conn, reply, time.monotonic() + _SYNC_TIMEOUT)
        self._board.send(b"%s %d\nsync %d\n" % (pin.encode(), int(level), self._sync))

    def _expire_syncs(self):
        now = time.monotonic()
        for number, (conn, reply, deadline) in list(self._pending.items()):
            if now > deadline:
                del self._pending[number]
                self._reply(conn, dict(reply, applied=False))

    # ---- the I/O loop ----

    def _run(self):
        try:
            while not self._stopping:
                self._step()
        except Exception as error:  # noqa: BLE001 - reported, then the board stops
            self.failure = error
            import traceback

            traceback.print_exc(file=self.stderr or sys.stderr)
        finally:
            self._kill()
            self._answer_requests()

    def _answer_requests(self):
        with self._lock:
            requests, self._requests = self._requests, []
        for function, done, box in requests:
            if not self._stopping and self.failure is None:
                try:
                    box.append((True, function()))
                except Exception as error:  # noqa: BLE001 - raised in the caller's thread
                    box.append((False, error))
            done.set()

    def _step(self):
        self._update_interest()
        for key, events in self._selector.select(timeout=0.02):
            tag = key.data
            if tag == "board_out":
                self._read_board()
            elif tag == "host_in":
                if events & selectors.EVENT_READ:
                    self._read_host()
                if events & selectors.EVENT_WRITE:
                    self._flush_host()
            elif tag == "wire_accept":
                self._accept(self._wire_listener, "board")
            elif tag == "rig_accept":
                self._accept(self._rig_listener, "rig")
            elif tag == "wake":
                try:
                    self._wake_r.recv(4096)
                except BlockingIOError:
                    pass
            elif isinstance(tag, _Conn):
                if events & selectors.EVENT_READ:
                    self._read_conn(tag)
                if events & selectors.EVENT_WRITE:
                    tag.flush()
        for conn in list(self._conns):
            if conn.closed:
                self._close(conn)
        self._answer_requests()
        self._check_exit()
        self._check_respawn()
        self._feed_board()
        self._flush_host()
        self._expire_syncs()
        if self._swallow is not None and time.monotonic() >= self._swallow[0]:
            self._from_board(b"")

    def _update_interest(self):
        # Ask for writability only while output waits.
        host = selectors.EVENT_READ | (selectors.EVENT_WRITE if self._host_out else 0)
        self._modify(self._master_b, host, "host_in")
        for conn in self._conns:
            self._modify(conn.sock, selectors.EVENT_READ
                         | (selectors.EVENT_WRITE if conn.outbuf else 0), conn)

    def _modify(self, fileobj, events, data):
        key = self._selector.get_key(fileobj)
        if key.events != events:
            self._selector.modify(fileobj, events, data)
