# The power-cut proof of design.md ("Nothing is lost"): power cut at every
# flash operation of a scripted table day on littlefs over a RAM flash device,
# in three ways, then a reboot on what survived (see power_cut_script.py).
#
# It runs as a process of its own with the board's heap, so nothing but the
# proof holds the heap, not even the test runner; its flash's bytes are in a
# file (ramflash.FileChip), outside the heap as a board's flash is outside
# its heap. MicroPython only: littlefs and the viper device are the unix
# port's.
import sys

HEAP = "192K"  # as the Makefile's test-micropython, a Pico's or an ESP32's heap
# The day with settled rounds loads the settlement (evaluator, paytables):
# about 50 KB of the unix port's heap, whose objects are twice a Pico's. At
# 192K the proof then has about 40 KB free in pieces of at most 1.5 KB, and
# allocations of 1.1-1.2 KB (a commit's, a boot's, the proof's own) fail:
# the full sweep with the Pico's mount failed 587 of its 978 cuts there
# (at 208K, 16 of its 1,353).
# With 224K it has about 64 KB, and every cut passes.
SETTLED_HEAP = "224K"

if sys.implementation.name == "micropython":
    import os

    def _proof(board, mode="day", heap=HEAP):
        command = "MICROPYPATH=%s %s -X heapsize=%s tests/logic/power_cut_script.py %s %s %s" % (
            os.getenv("MICROPYPATH") or "firmware:tests/logic", sys.executable, heap, board,
            mode, heap)
        status = os.system(command)
        assert status == 0, "the power-cut proof failed (%s: status %d)" % (command, status)

    # The meter record lives inline in littlefs's metadata with the Pico's
    # mount and in a data block of its own with the ESP32's: two code paths
    # of littlefs, each cut at every operation.
    def test_power_cut_proof_with_the_picos_littlefs():
        _proof("pico")

    def test_power_cut_proof_with_the_esp32s_littlefs():
        _proof("esp32")

    # The day with settled rounds, cut at every operation of one settlement
    # and of the boots after; every operation of every step is
    # tests/host/test_power_cut_settled.py's (long_run).
    def test_power_cut_through_a_settled_round_with_the_picos_littlefs():
        _proof("pico", "settled", SETTLED_HEAP)

    def test_power_cut_through_a_settled_round_with_the_esp32s_littlefs():
        _proof("esp32", "settled", SETTLED_HEAP)
