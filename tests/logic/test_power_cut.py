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

if sys.implementation.name == "micropython":
    import os

    from board_heap import heapsize

    def _proof(board, mode="day"):
        heap = heapsize()
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
        _proof("pico", "settled")

    def test_power_cut_through_a_settled_round_with_the_esp32s_littlefs():
        _proof("esp32", "settled")

    # The generator's state (drbg_power_cut_script.py): a seeded board's
    # day cut at every operation; the state never lost, committed with its
    # draw, and no output given twice.
    def _generator_proof(board):
        heap = heapsize()
        command = ("MICROPYPATH=%s %s -X heapsize=%s tests/logic/drbg_power_cut_script.py %s %s"
                   % (os.getenv("MICROPYPATH") or "firmware:tests/logic", sys.executable, heap,
                      board, heap))
        status = os.system(command)
        assert status == 0, "the generator's power-cut proof failed (%s: status %d)" % (
            command, status)

    def test_power_cut_of_the_generators_state_with_the_picos_littlefs():
        _generator_proof("pico")

    def test_power_cut_of_the_generators_state_with_the_esp32s_littlefs():
        _generator_proof("esp32")
