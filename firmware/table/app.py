# Builds the controller from a board and runs it under asyncio: one task
# ticks the table (debounced inputs, outputs), one serves the host link.
# Ctrl-C on the serial link stops it and leaves the REPL, as on any board.
import asyncio
import time

from micropython import const

from mystery.bonus import MysteryBonus
from mystery.store import Store

from .controller import Table
from .hostlink import HostLink

_TICK_MS = const(5)


def build(board):
    bonus = MysteryBonus(Store(board.storage_root), board.random_bytes, time.time)
    table = Table(bonus, board.seats, board.lock, board.key, board.display, None)
    link = HostLink(table, board.serial.write_line)
    table.emit = link.send
    return table, link


async def _table_task(table, board):
    while True:
        board.service()  # the virtual board swaps pin states with its rig here
        table.tick(time.ticks_ms())
        await asyncio.sleep_ms(_TICK_MS)


async def _link_task(link, board):
    while True:
        link.poll(board.serial.read_available, time.ticks_ms())  # one bounded slice of work
        await asyncio.sleep_ms(_TICK_MS)


async def _main(table, link, board):
    asyncio.create_task(_table_task(table, board))
    await _link_task(link, board)


def run(board):
    table, link = build(board)
    table.start(time.ticks_ms())
    link.send({"ev": "started", "state": table.state})
    try:
        asyncio.run(_main(table, link, board))
    finally:
        asyncio.new_event_loop()  # a later run() on this interpreter starts clean
