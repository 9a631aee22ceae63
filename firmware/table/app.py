# Builds the controller from a board and runs it under asyncio: one task
# ticks the table (debounced inputs, outputs), one serves the host link.
# The serial link speaks only the host link while it runs: no byte from the
# host stops it (main.py turns Ctrl-C off first, and run() again); with the
# key switch held, the host link's `repl` ends it and hands the port to the
# REPL, Ctrl-C on again (docs/host-link.md, "The REPL").
#
# Time comes from the board's clock: `board.clock` with ticks_ms() and an
# awaitable sleep_ms(ms), when the board passes one (the virtual board's runs
# N times faster for a soak, boards/sim/fastclock.py), else MicroPython's
# time.ticks_ms and asyncio.sleep_ms, as every real board has it.
import asyncio
import time

import micropython
from micropython import const

from mystery.bonus import MysteryBonus, load_settlement
from mystery.store import Store

from . import expiry
from .board_clock import BoardClock
from .controller import NOT_CONFIGURED, Table
from .heap import HeapWatch
from .hostlink import HostLink
from .unix_time import unix_clock

_TICK_MS = const(5)
_CTRL_C = const(3)


def build(board):
    store = Store(board.storage_root, segments_kept=getattr(board, "log_segments", 8))
    bonus = MysteryBonus(store, board.random_bytes, unix_clock())
    table = Table(bonus, board.seats, board.lock, board.key, board.display, None,
                  io=getattr(board, "io", None), qualify=getattr(board, "qualify", None),
                  today=lambda: expiry.board_date(time.localtime),
                  door_pin=getattr(board, "door", None))
    link = HostLink(table, board.serial.write_line, getattr(board.serial, "write_json", None),
                    clock=calendar_clock(board))
    link.program = getattr(board, "program", None)
    table.program = link.program  # checked at every start (program_check.py)
    table.ticks_ms = clock_of(board)[0]  # which times that check
    table.reset_cause = getattr(board, "reset_cause", None)  # for the start's record
    link.heap = HeapWatch(link.send, getattr(board, "reset", None),
                          getattr(board, "heap_bytes", None))
    table.emit = link.send
    table.collect = link.heap.collect
    return table, link


def start(table, link, now):
    # The table started, its program checked on a heap that holds nothing of
    # play's yet (on a WROOM the check's reads found no room with the
    # settlement loaded first), then what rounds need, made while the heap
    # is whole.
    table.start(now)
    ready_for_rounds(link)


def ready_for_rounds(link):
    # What a round needs in one piece, made at start while the heap is
    # whole: the settlement's modules, whose names grow the runtime's table
    # of names by doubling into one new block, and the round line's buffer.
    # After hours of play the heap may have no such block (docs/heap.md). A
    # heap too small for rounds needs neither. Only a table with paytables in
    # force settles side wagers: one without (a new flash, or a table that
    # plays the mystery bonus alone) keeps that heap for its commits, which a
    # signed LOCK on the emulated WROOM did not find with the settlement
    # loaded; its first round loads it, if it ever settles one.
    if link.heap.no_settlement is None:
        if settles_side_wagers(link.table):
            load_settlement()
        link.reserve_round_line()


def settles_side_wagers(table):
    # Whether the table has paytables in force (a configured table's settings).
    if table.mode == NOT_CONFIGURED or table.bonus.meter is None:
        return False
    return bool(table.bonus.meter.settings.get("paytables"))


def calendar_clock(board):
    # The board's RTC for the host link's `clock` command; None where it has none.
    rtc = getattr(board, "rtc", None)
    return None if rtc is None else BoardClock(rtc)


def clock_of(board):
    # (ticks_ms, sleep_ms): the board's own clock, else the system's.
    clock = getattr(board, "clock", None)
    if clock is None:
        return time.ticks_ms, asyncio.sleep_ms
    return clock.ticks_ms, clock.sleep_ms


def table_turn(table, link, board, now):
    # One turn of the table: a failed allocation is an event, and play goes on.
    try:
        board.service()  # the virtual board swaps pin states with its rig here
        table.tick(now)
    except MemoryError:
        link.heap.failed("table")
    if link.heap.due(now) and table.idle() and link.idle():
        link.heap.check(now)


def link_turn(link, board, now):
    try:
        link.poll(board.serial.read_available, now)  # one bounded slice of work
    except MemoryError:
        link.heap.failed("host link")


async def _table_task(table, link, board, ticks_ms, sleep_ms):
    while True:
        table_turn(table, link, board, ticks_ms())
        await sleep_ms(_TICK_MS)


async def _link_task(link, board, ticks_ms, sleep_ms):
    # Ends once the host link handed the port to the REPL, and with it the board's loop.
    while not link.handed_off:
        link_turn(link, board, ticks_ms())
        await sleep_ms(_TICK_MS)


async def _main(table, link, board, clock):
    asyncio.create_task(_table_task(table, link, board, *clock))
    await _link_task(link, board, *clock)


def run(board):
    micropython.kbd_intr(-1)  # (main.py did already; a run() from a REPL needs it too)
    table, link = build(board)
    clock = clock_of(board)
    start(table, link, clock[0]())
    link.send({"ev": "started", "state": table.state})
    try:
        asyncio.run(_main(table, link, board, clock))
    finally:
        # The REPL's again: a handed-off port, or a controller that stopped on an error.
        micropython.kbd_intr(_CTRL_C)
        asyncio.new_event_loop()  # a later run() on this interpreter starts clean
