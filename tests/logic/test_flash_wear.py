# Flash wear of the meter store, counted on the RAM flash device: block
# erases per round on a mature table, and the flash lifetime that implies at
# design.md's 1,500 rounds a day against its 20-year budget. A round is two
# commits: its LOCK (the Mystery contributions) and its settlement (the
# `round` command: six seats, each with all four side wagers).
#
# Each board is measured with the littlefs parameters its MicroPython build
# mounts the filesystem with (they decide which files live inline in
# littlefs's metadata and what a commit costs), and with the meter carrying
# its full list of 25 recent hits, as it does for most of a table's life.
# Each runs as a process of its own with the board's heap
# (flash_wear_script.py), as the power-cut proof does. MicroPython only:
# littlefs is the unix port's.
import sys

if sys.implementation.name == "micropython":
    import os

    from board_heap import heapsize

    def _count(board):
        command = "MICROPYPATH=%s %s -X heapsize=%s tests/logic/flash_wear_script.py %s" % (
            os.getenv("MICROPYPATH") or "firmware:tests/logic", sys.executable, heapsize(), board)
        status = os.system(command)
        assert status == 0, "flash wear under design.md's budget, or the count failed " \
            "(%s: status %d)" % (command, status)

    def test_flash_lifetime_on_the_pico():
        _count("pico")

    def test_flash_lifetime_on_the_esp32():
        _count("esp32")
