# The power-cut proof of design.md ("Nothing is lost"): power cut at every
# flash operation of a scripted table day on littlefs over a RAM flash device,
# in three ways, then a reboot on what survived (see power_cut_script.py).
#
# It runs as a process of its own with the board's heap: its flash image
# (64-96 KB of 4 KB blocks, which a board keeps outside its heap) must sit in
# the heap beside the controller, so nothing but the proof may hold the heap,
# not even the test runner. MicroPython only: littlefs and the viper device
# are the unix port's.
import sys

HEAP = "192K"  # as the Makefile's test-micropython, a Pico's or an ESP32's heap

if sys.implementation.name == "micropython":
    import os

    def test_power_cut_proof_in_a_board_sized_heap():
        command = "MICROPYPATH=%s %s -X heapsize=%s tests/logic/power_cut_script.py" % (
            os.getenv("MICROPYPATH") or "firmware:tests/logic", sys.executable, HEAP)
        status = os.system(command)
        assert status == 0, "the power-cut proof failed (%s: status %d)" % (command, status)
