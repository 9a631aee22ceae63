# The emulated ESP32's flash file (uthctl/boards/esp32_flash.py): the official
# image merged by esptool into a 16 MB file, the vfs partition a littlefs made
# on the host with the port's geometry, holding the controller's build; and,
# on QEMU (marked esp32), the official image mounting that littlefs and
# reading every file of the build back byte for byte.
import hashlib
import shutil

import pytest

from uthctl.boards import esp32_flash

pytestmark = pytest.mark.skipif(esp32_flash.unavailable() is not None,
                                reason=str(esp32_flash.unavailable()))


@pytest.fixture(scope="module")
def build():
    return esp32_flash.emulated_build()


def test_kit_is_checked_against_its_sums(tmp_path):
    kit = tmp_path / "kit"
    shutil.copytree(esp32_flash.kit(), kit)
    assert esp32_flash.check_kit(kit) == kit
    image = kit / esp32_flash.IMAGES["wroom"]
    image.chmod(0o600)
    image.write_bytes(image.read_bytes()[:-1] + b"\0")
    with pytest.raises(esp32_flash.Esp32Unavailable, match="does not match SHA256SUMS"):
        esp32_flash.check_kit(kit)


def test_flash_file_holds_the_image_and_the_build(tmp_path, build):
    flash = esp32_flash.make_flash(tmp_path / "flash.bin", build)
    data = flash.read_bytes()
    assert len(data) == 16 * 1024 * 1024 and flash.stat().st_mode & 0o777 == 0o600
    image = esp32_flash.firmware("wroom").read_bytes()
    assert data[0x1000:0x1000 + len(image)] == image  # esptool merge-bin at 0x1000
    assert data[:0x1000] == b"\xff" * 0x1000
    # The partition table (0x8000) names the factory app ending at 0x200000, where vfs begins.
    table = data[0x8000:0x9000]
    assert b"factory" in table and b"vfs" not in table
    fs = esp32_flash.read_filesystem(flash)
    assert fs.cfg.block_size == 4096 and fs.cfg.block_count == (16 - 2) * 256
    for path in sorted(build.rglob("*")):
        name = path.relative_to(build).as_posix()
        if path.is_file():
            with fs.open(name, "rb") as file:
                assert file.read() == path.read_bytes(), name
    assert sorted(fs.listdir("/")) == sorted(p.name for p in build.iterdir())


def _reader(build_lib, folder):
    # A build with the controller's lib/ but no main.py nor stand-ins: the REPL comes up.
    folder.mkdir()
    shutil.copytree(build_lib, folder / "lib")
    return folder


READ_BACK = """
import os, hashlib, binascii
def walk(top):
    for name, kind, *_ in os.ilistdir(top):
        path = top + "/" + name
        if kind == 0x4000:
            yield from walk(path)
        else:
            yield path
for path in sorted(walk("/lib")):
    with open(path, "rb") as f:
        print(path, binascii.hexlify(hashlib.sha256(f.read()).digest()).decode())
"""


@pytest.mark.esp32
@pytest.mark.slow
def test_official_image_mounts_the_hosts_littlefs(tmp_path, build):
    from uthctl.boards import raw_repl
    from uthctl.boards.esp32 import Esp32Board

    folder = _reader(build / "lib", tmp_path / "build")
    with Esp32Board(flash=tmp_path / "flash.bin", build=folder) as board:
        came = board.wait_started()
        assert came["state"] == "repl", (came, board.state())
        # Under a minute on a quiet host; past 300 s once with three QEMUs on two
        # cores, the reads going at QEMU's flash pace: the wait ends when they do.
        out = raw_repl.check(board.serial_path, READ_BACK, timeout=1200,
                             boots=lambda: board.state()["boots"])
        print("emulated ESP32: %(panics)d panics, %(qemu_aborts)d QEMU aborts, "
              "%(resets)d resets" % board.state())
    expected = {"/lib/" + p.relative_to(folder / "lib").as_posix():
                hashlib.sha256(p.read_bytes()).hexdigest()
                for p in (folder / "lib").rglob("*") if p.is_file()}
    read = dict(line.split() for line in out.splitlines() if line.startswith("/lib/"))
    assert read == expected


def _boot_mount():
    # The settings the emulated board's /boot.py mounts the vfs partition with.
    import re

    text = (esp32_flash.REPO / esp32_flash.STANDIN_BOOT).read_text()
    found = re.search(r"VfsLfs2\(bdev, readsize=(\d+), progsize=(\d+), lookahead=(\d+)\)", text)
    assert found, "boot.py mounts the vfs partition again"
    return [int(value) for value in found.groups()]


def _mounted(data, read_size, prog_size, lookahead):
    # The littlefs in data mounted with the settings MicroPython's VfsLfs2 derives
    # from these (extmod/vfs_lfsx.c: cache 4 x the larger size, at most a block).
    littlefs = esp32_flash.littlefs_module()
    context = littlefs.UserContext(len(data))
    context.buffer[:] = data
    config = dict(esp32_flash.littlefs_config(), read_size=read_size, prog_size=prog_size,
                  lookahead_size=lookahead,
                  cache_size=min(esp32_flash.BLOCK_SIZE, 4 * max(read_size, prog_size)))
    return littlefs.LittleFS(context=context, **config), context


def test_boot_remounts_the_same_filesystem_with_one_block_caches(build):
    # The emulated board remounts its vfs partition with larger caches (fewer
    # flash operations under QEMU): littlefs keeps neither size on flash, so the
    # filesystem the host wrote with the port's defaults reads the same, and what
    # is written under the new mount reads back under the port's own.
    read_size, prog_size, lookahead = _boot_mount()
    assert prog_size == esp32_flash.LFS_PROG_SIZE  # commits padded as the filesystem was made
    assert 4 * read_size == esp32_flash.BLOCK_SIZE  # one flash operation reads a whole block
    assert lookahead * 8 >= esp32_flash.VFS_SIZE // esp32_flash.BLOCK_SIZE
    fs, context = _mounted(esp32_flash.filesystem_bytes(build), read_size, prog_size, lookahead)
    for path in sorted(build.rglob("*")):
        if path.is_file():
            with fs.open(path.relative_to(build).as_posix(), "rb") as file:
                assert file.read() == path.read_bytes(), path
    fs.mkdir("meter")
    with fs.open("meter/meter.a", "wb") as file:
        file.write(bytes(range(256)) * 20)
    fs.unmount()
    again, _ = _mounted(bytes(context.buffer), esp32_flash.LFS_READ_SIZE,
                        esp32_flash.LFS_PROG_SIZE, esp32_flash.LFS_LOOKAHEAD)
    with again.open("meter/meter.a", "rb") as file:
        assert file.read() == bytes(range(256)) * 20
    with again.open("lib/board.mpy", "rb") as file:
        assert file.read() == (build / "lib" / "board.mpy").read_bytes()
