# A full flash on the virtual board's own flash (boards/sim/simboot.py: a
# 128-block image file, littlefs mounted with its defaults): filled, one
# block freed, the controller started again on it (only the store writes the
# flash while the controller runs: a technician's copy stops it, and the
# store measures the room anew when it starts), then rounds until the one
# that hits. That once let the hitting round's log records land and its
# meter record fail on ENOSPC, and the log command sent the uncommitted hit.
# Now every round is refused before anything is written, nothing the board
# sends shows the live value, and once space is freed play goes on to the
# same hit.
# MicroPython only: littlefs is the unix port's.
import sys

if sys.implementation.name == "micropython":
    import json
    import os

    import tmpdir
    from leaks import leaks, secrets_of
    from scripted import SALT_HEX
    from table_rig import Rig, scripted_hit

    sys.path.append("boards/sim")  # the virtual board's own flash device and format
    from simboot import FileFlash, new_image  # noqa: E402

    MOUNT = "/vflash"
    HIT_ROUND = 31  # seat 1's 2 cents a round pass $100.61 in round 31

    def _fill():
        # One-block files until the flash is full, then one removed.
        count = 0
        block = bytes(4096)
        while True:
            try:
                with open("%s/fill.%d" % (MOUNT, count), "wb") as f:
                    f.write(block)
                count += 1
            except OSError:
                break
        for name in ("fill.%d" % count, "fill.%d" % (count - 1)):
            try:
                os.remove(MOUNT + "/" + name)
            except OSError:
                pass

    def _unfill():
        for name in os.listdir(MOUNT):
            if name.startswith("fill."):
                os.remove(MOUNT + "/" + name)

    def _round(rig):
        rig.chip(1)
        rig.press_lock()
        rig.chip(1, False)
        rig.run(300)

    def test_a_full_flash_on_the_virtual_board_refuses_rounds_and_shows_no_hit_value():
        root = tmpdir.make()
        image = root + "/flash.img"
        new_image(image)
        device = FileFlash(image)
        os.mount(os.VfsLfs2(device), MOUNT)
        try:
            rig = Rig(MOUNT, random_bytes=scripted_hit(61), seats=1)
            rig.configure("A1")
            value = rig.table.bonus.meter._hit_value
            assert value == 100_610_000
            before = rig.table.bonus.meters()
            _fill()
            rig = Rig(MOUNT, random_bytes=scripted_hit(61), seats=1)
            assert rig.table.bonus.meters() == before
            for _ in range(HIT_ROUND):
                _round(rig)
                assert rig.table.state == "betting", rig.table.bonus.fault
            refused = rig.events("refused")
            assert len(refused) == HIT_ROUND and refused[0]["reason"].startswith("flash full")
            for command in ({"cmd": "log"}, {"cmd": "meters"}, {"cmd": "status"}):
                rig.command(**command)
            assert rig.table.bonus.meters() == before
            for line in rig.lines:
                assert not leaks(json.loads(line), secrets_of(value), SALT_HEX), line
            _unfill()
            for _ in range(HIT_ROUND):
                _round(rig)
            hits = rig.events("hit")
            assert [(h["round"], h["hit_value"]) for h in hits] == [(HIT_ROUND, value)], hits
        finally:
            os.umount(MOUNT)
            device.file.close()
            tmpdir.remove(root)
