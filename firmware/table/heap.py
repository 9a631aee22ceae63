# The controller watches its heap (docs/heap.md). `status` gives, in "heap",
# gc.mem_free() after its last collection and the least seen since start-up;
# an allocation that fails in the loop is an event naming where, and play goes
# on; and when the heap no longer has a free block as large as a commit needs,
# the controller restarts itself at its next idle moment (betting, no chip on
# a spot, nothing pending, no line half read), which the store makes safe at
# any instant: the last line of defence, not the design.
#
# A board whose heap is too small for settlement refuses `round` from start-up,
# saying why in "heap", rather than meet a MemoryError in the middle of play.
import gc

from micropython import const

from .clock import ticks_diff

_CHECK_MS = const(10_000)  # an idle check (a collection, a probe) at most this often
# Twice the largest piece a commit takes in one go, its record's text: a heap
# without a free block this large is in pieces (docs/heap.md, "The board
# watches its heap").
COMMIT_BLOCK = const(2_400)
# What settlement takes: what the controller has in use after a six-seat
# settled round and 24 KB free to play on (docs/heap.md, "The ESP32-WROOM-32:
# settlement on its measured heap").
SETTLE_HEAP = const(141_312)
NO_SETTLEMENT = "round refused: this board's heap (%d bytes) is below the %d settlement needs"


def gc_heap():
    # The GC heap's size now, or None where the runtime does not say (CPython).
    if not hasattr(gc, "mem_free"):
        return None
    return gc.mem_free() + gc.mem_alloc()


def has_block(size=COMMIT_BLOCK):
    # Whether the heap has a free block of `size` bytes in one piece.
    try:
        probe = bytearray(size)
    except MemoryError:
        return False
    del probe
    return True


class HeapWatch:
    # emit: the host link's send; reset: restarts the board (its machine.reset,
    # which the board file passes in; None: a board that cannot, which says so);
    # heap_bytes: the most the GC heap can hold on this board (None: as now);
    # mem_free and whole: gc.mem_free and has_block, unless a test gives others.
    def __init__(self, emit, reset, heap_bytes=None, mem_free=None, whole=has_block):
        self.emit = emit
        self.reset = reset
        self.mem_free = mem_free or getattr(gc, "mem_free", None)
        self.whole = whole
        self.heap_bytes = heap_bytes if heap_bytes is not None else gc_heap()
        self.free = None
        self.least = None
        self.checked = None
        self.no_settlement = None
        if self.heap_bytes is not None and self.heap_bytes < SETTLE_HEAP:
            self.no_settlement = NO_SETTLEMENT % (self.heap_bytes, SETTLE_HEAP)
        self.collect()

    def collect(self):
        gc.collect()
        if self.mem_free is None:  # CPython: no such figure
            return
        free = self.mem_free()
        self.free = free
        if self.least is None or free < self.least:
            self.least = free

    def status(self):
        return {"free": self.free, "least_free": self.least, "settlement": self.no_settlement}

    def failed(self, where):
        # A MemoryError caught in the loop, at `where`: what was under way is
        # dropped (a commit that failed has already faulted the meter), the
        # garbage is collected and the loop goes on.
        self.collect()
        self.emit({"ev": "memory", "where": where, "free": self.free})

    def due(self, now):
        return self.checked is None or ticks_diff(now, self.checked) >= _CHECK_MS

    def check(self, now):
        # At an idle moment (nothing a restart would cut short), when due.
        self.checked = now
        self.collect()
        if self.whole():
            return
        self.emit({"ev": "restart", "reason": "heap in pieces: no free block of %d bytes "
                   "for a commit; restarting while idle" % COMMIT_BLOCK, "free": self.free})
        if self.reset is not None:
            self.reset()
