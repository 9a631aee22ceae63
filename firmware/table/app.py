# Builds the controller from a board and runs it under asyncio: one task
# ticks the table (debounced inputs, outputs), one serves the host link.
# Ctrl-C on the serial link stops it and leaves the REPL, as on any board.
#
# Time comes from the board's clock: `board.clock` with ticks_ms() and an
# awaitable sleep_ms(ms), when the board passes one (the virtual board's runs
# N times faster for a soak, boards/sim/fastclock.py), else MicroPython's
# time.ticks_ms and asyncio.sleep_ms, as every real board has it.
import asyncio
import time

from micropython import const

from mystery.bonus import MysteryBonus
from mystery.store import Store

from . import expiry
from .controller import Table
from .hostlink import HostLink

_TICK_MS = const(5)


def build(board):
    bonus = MysteryBonus(Store(board.storage_root), board.random_bytes, time.time)
    table = Table(bonus, board.seats, board.lock, board.key, board.display, None,
                  io=getattr(board, "io", None), qualify=getattr(board, "qualify", None),
                  today=lambda: expiry.board_date(time.localtime))
    link = HostLink(table, board.serial.write_line, getattr(board.serial, "write_json", None))
    link.program = getattr(board, "program", None)
    link.reserve_round_line()
    table.emit = link.send
    return table, link


def clock_of(board):
    # (ticks_ms, sleep_ms): the board's own clock, else the system's.
    clock = getattr(board, "clock", None)
    if clock is None:
        return time.ticks_ms, asyncio.sleep_ms
    return clock.ticks_ms, clock.sleep_ms


async def _table_task(table, board, ticks_ms, sleep_ms):
    while True:
        board.service()  # the virtual board swaps pin states with its rig here
        table.tick(ticks_ms())
        await sleep_ms(_TICK_MS)


async def _link_task(link, board, ticks_ms, sleep_ms):
    while True:
        link.poll(board.serial.read_available, ticks_ms())  # one bounded slice of work
        await sleep_ms(_TICK_MS)


async def _main(table, link, board, clock):
    asyncio.create_task(_table_task(table, board, *clock))
    await _link_task(link, board, *clock)


def run(board):
    table, link = build(board)
    clock = clock_of(board)
    table.start(clock[0]())
    link.send({"ev": "started", "state": table.state})
    try:
        asyncio.run(_main(table, link, board, clock))
    finally:
        asyncio.new_event_loop()  # a later run() on this interpreter starts clean
