# /boot.py on the emulated ESP32's flash only (host_tools/uthctl/boards/esp32_flash.py
# writes it there; never part of a build the project ships).
#
# First the vfs partition is mounted again with a 1024-byte read size. The
# port's own mount (_boot.py: vfs.mount(bdev, "/")) takes littlefs's defaults,
# read and program size 32, so its caches hold 4 * 32 = 128 bytes and every
# 128 bytes read is one flash operation. Under QEMU each flash operation costs
# tens of milliseconds whatever its size (the flash driver turns the cache off
# and on), and some panic the chip, so 4096-byte caches (one block) cut the
# operations about 30-fold: `import board` went from 45 s to 6 s. The program
# size stays 32, as the filesystem was written, and littlefs keeps neither size
# in its superblock. The cost is 2 x (4096 - 128) bytes more of the GC heap,
# and a file open holds 4096 bytes instead of 128 (docs/boards.md). The
# lookahead covers all 3,584 blocks (448 bytes), so finding a free block reads
# the filesystem's metadata once instead of 14 times.
import vfs
from flashbdev import bdev

vfs.umount("/")
vfs.mount(vfs.VfsLfs2(bdev, readsize=1024, progsize=32, lookahead=448), "/")
del vfs, bdev

# Then the bus stand-ins (standin.py) in place of machine's I2C, SPI and
# stood-in Pins before main.py imports the shipped board file.
import standin  # noqa: E402

standin.install()
