# The board watches its heap (table/heap.py): `status` gives the free heap
# after the last collection and the least seen; a failed allocation in the
# loop is an event naming where, and play goes on; a heap in pieces restarts
# the controller at its next idle moment; a heap too small for settlement
# refuses `round` from start-up, saying why.
import json
import sys

import tmpdir
from table import app
from table.heap import COMMIT_BLOCK, HeapWatch, has_block
from table_rig import Rig

# A heap below SETTLE_HEAP: 112 KB, once taken (from sources) for an ESP32-WROOM-32's,
# whose GC heap measured on the official image is 166,592 bytes (docs/heap.md).
SMALL_HEAP = 112 * 1024
PICO_HEAP = 245_888  # the official RPI_PICO image's, measured on the emulated Pico
WROOM_HEAP = 166_592  # the official ESP32_GENERIC image's, measured on the emulated ESP32


class Restarts:
    def __init__(self):
        self.count = 0

    def __call__(self):
        self.count += 1


def _watched(rig, heap_bytes=PICO_HEAP, mem_free=None, whole=has_block):
    restarts = Restarts()
    rig.link.heap = HeapWatch(rig.link.send, restarts, heap_bytes, mem_free, whole)
    return restarts


class Board:
    # What app.table_turn and app.link_turn ask of a board; `fail` names the
    # step that raises MemoryError once.
    def __init__(self, fail=None):
        self.fail = fail

    def service(self):
        self._maybe("service")

    def _maybe(self, step):
        if self.fail == step:
            self.fail = None
            raise MemoryError("memory allocation failed")


class Serial:
    def __init__(self, board):
        self.board = board

    def read_available(self):
        self.board._maybe("read")
        return b""


def _turns(rig, board, ms, step=5):
    for _ in range(ms // step):
        rig.now += step
        app.table_turn(rig.table, rig.link, board, rig.now)
        app.link_turn(rig.link, board, rig.now)


@tmpdir.within
def test_status_gives_the_free_heap_after_the_last_collection_and_the_least_seen(root):
    rig = Rig(root)
    figures = iter([90_000, 70_000, 80_000])
    _watched(rig, mem_free=lambda: next(figures))  # start-up collects: 90,000
    assert rig.command(cmd="status")[-1]["heap"] == {
        "free": 90_000, "least_free": 90_000, "settlement": None}
    rig.link.heap.collect()
    rig.link.heap.collect()
    heap = rig.command(cmd="status")[-1]["heap"]
    assert (heap["free"], heap["least_free"]) == (80_000, 70_000)


if sys.implementation.name == "micropython":
    import gc

    @tmpdir.within
    def test_status_gives_the_boards_own_free_heap(root):
        rig = Rig(root)
        _watched(rig)
        heap = rig.command(cmd="status")[-1]["heap"]
        gc.collect()
        total = gc.mem_free() + gc.mem_alloc()
        assert 0 < heap["least_free"] <= heap["free"] < total

    def test_a_heap_in_pieces_has_no_block_for_a_commit():
        # Blocks of a fifth of a commit's until the heap is full, then every
        # other one freed: much is free, but in pieces too small. The list is
        # made whole first: one that grew as it filled could meet its
        # MemoryError in its own growth, leaving a free piece as large as it.
        size = COMMIT_BLOCK // 5
        held = [None] * (gc.mem_free() // size + 1)
        try:
            for index in range(len(held)):
                held[index] = bytearray(size)
        except MemoryError:
            pass
        for index in range(0, len(held), 2):
            held[index] = None
        gc.collect()
        try:
            assert gc.mem_free() > 4 * COMMIT_BLOCK
            assert not has_block()
        finally:
            held = None
            gc.collect()
        assert has_block()


@tmpdir.within
def test_a_failed_allocation_in_the_table_turn_is_an_event_and_play_goes_on(root):
    rig = Rig(root)
    rig.configure("A1")
    _watched(rig)
    board = Board(fail="service")
    serial = Serial(board)
    board.serial = serial
    _turns(rig, board, 20)
    assert [(e["where"]) for e in rig.events("memory")] == ["table"]
    # The table plays on: chips placed and LOCK pressed lock the round.
    rig.chips[0].level = 1
    _turns(rig, board, 100)
    rig.lock.level = 1
    _turns(rig, board, 100)
    assert rig.events("locked"), rig.lines[-3:]


@tmpdir.within
def test_a_failed_allocation_in_the_host_link_is_an_event_and_the_link_goes_on(root):
    rig = Rig(root)
    _watched(rig)
    board = Board(fail="read")
    board.serial = Serial(board)
    _turns(rig, board, 20)
    assert [e["where"] for e in rig.events("memory")] == ["host link"]
    assert rig.command(cmd="ping")[-1]["reply"] == "pong"


@tmpdir.within
def test_a_heap_in_pieces_restarts_the_controller_at_the_next_idle_moment(root):
    rig = Rig(root)
    rig.configure("A1")
    whole = [True]
    restarts = _watched(rig, whole=lambda: whole[0])
    board = Board()
    board.serial = Serial(board)
    _turns(rig, board, 20)  # checked once, whole
    whole[0] = False
    rig.chips[1].level = 1  # a chip on a spot: not idle
    _turns(rig, board, 30_000)
    assert restarts.count == 0 and not rig.events("restart")
    rig.chips[1].level = 0
    _turns(rig, board, 1_000)  # the chip lifted: idle, and the check is long due
    assert restarts.count == 1
    restart = rig.events("restart")
    assert len(restart) == 1 and "heap in pieces" in restart[0]["reason"], restart


@tmpdir.within
def test_no_restart_while_a_round_is_locked(root):
    rig = Rig(root)
    rig.configure("A1")
    restarts = _watched(rig, whole=lambda: False)
    board = Board()
    board.serial = Serial(board)
    rig.chips[0].level = 1
    _turns(rig, board, 100)
    rig.lock.level = 1
    _turns(rig, board, 100)
    rig.lock.level = 0
    assert rig.table.state != "betting"
    _turns(rig, board, 20_000)  # chips stay on: the round stays locked
    assert restarts.count == 0


@tmpdir.within
def test_a_heap_too_small_for_settlement_refuses_round_from_start_up(root):
    rig = Rig(root)
    rig.configure("A1")
    _watched(rig, heap_bytes=SMALL_HEAP)
    reason = rig.command(cmd="status")[-1]["heap"]["settlement"]
    assert reason.startswith("round refused") and str(SMALL_HEAP) in reason, reason
    reply = rig.command(cmd="round", round="r-1", dealer=["Qs", "Ks"],
                        board=["9s", "Ts", "Js", "9c", "9d"],
                        seats=[{"seat": 1, "cards": ["9h", "2c"], "wagers": {"trips": 500}}])[-1]
    assert reply == {"ok": False, "error": reason}, reply
    assert json.loads(rig.lines[-1])["ok"] is False


@tmpdir.within
def test_the_picos_heap_leaves_round_to_the_rules(root):
    rig = Rig(root)
    rig.configure("A1")
    _watched(rig, heap_bytes=PICO_HEAP)
    assert rig.command(cmd="status")[-1]["heap"]["settlement"] is None
    reply = rig.command(cmd="round", round="r-1", dealer=["Qs", "Ks"],
                        board=["9s", "Ts", "Js", "9c", "9d"],
                        seats=[{"seat": 1, "cards": ["9h", "2c"], "wagers": {"trips": 500}}])[-1]
    # No paytable set: the rules refuse it, not the heap.
    assert reply["ok"] is False and "round refused" not in reply["error"], reply


@tmpdir.within
def test_the_wrooms_measured_heap_leaves_round_to_the_rules(root):
    rig = Rig(root)
    rig.configure("A1")
    _watched(rig, heap_bytes=WROOM_HEAP)
    assert rig.command(cmd="status")[-1]["heap"]["settlement"] is None


@tmpdir.within
def test_a_heap_too_small_for_settlement_refuses_its_paytables_too(root):
    # Setting them loads the paytables, which such a heap cannot hold for long.
    rig = Rig(root)
    rig.configure("A1")
    _watched(rig, heap_bytes=SMALL_HEAP)
    rig.key.level = 1
    rig.run(100)
    reply = rig.command(cmd="set", name="paytables", value={"trips": "E"})[-1]
    assert reply["ok"] is False and reply["error"].startswith("round refused"), reply
    reply = rig.command(cmd="set", name="max_payout_cents", value=50_000)[-1]
    assert reply["ok"] is True, reply
