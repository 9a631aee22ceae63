# uthctl sim (interactive): the virtual table in a terminal. It starts the
# virtual board (boards/virtual.py) and is then a host like any other: the
# person's keys move the table's pins through the rig port (links/rig.py), and
# the table's state, meters and events come over the board's serial link
# (links/board_link.py).
#
#   threads   main     curses: draws, reads keys, polls the rig's pin state
#                      (screen.py, view.py, panels.py)
#             link     the one reader of the serial port: events, replies,
#                      and a status/meters poll twice a second (none while the
#                      board sits at its REPL, which would echo each poll)
#                      (board_feed.py)
#             hands    the person's (or auto-play's) actions, one at a time
#                      (hands.py)
#
# Auto-play is a rig feature, not a firmware one: it places chips, presses
# LOCK and takes the chips away as a dealer would, round after round, until
# a hit, so a person can watch the meter climb and reach a hit in a minute
# or two. The firmware's random hit value is untouched (unless the TEST-ONLY
# seed was asked for, which the screen then says in red).
import curses
import io
import locale
import os
import signal

from mystery.money import dollars as money

from ..boards.virtual import VirtualBoard
from ..links import ports
from ..links.board_link import Link
from ..links.chip_clock import WALL, RigChipClock
from ..links.rig_transport import is_address, parse_address
from .attach import NO_RIG, AttachedBoard, open_rig
from .board_feed import COMMAND_TIMEOUT, BoardFeed
from .hands import Hands, TableRig
from .screen import screen_loop
from .view import TableView


class _Quit(Exception):
    pass


def _quit(signum, frame):
    signal.signal(signum, signal.SIG_IGN)  # once: the shutdown itself is not cut short
    raise _Quit()


def run(flash=None, micropython=None, seed=None, board=None):
    # The interactive table; returns when the person quits. `board`: another
    # board with the virtual board's face, not started (the emulated Pico's
    # PicoBoard); by default a VirtualBoard on `flash`. The board's
    # meters stay on its flash image for the next run. SIGTERM and SIGHUP
    # end it as q does, so the board's interpreter never outlives it.
    return _guarded(lambda: _run(flash, micropython, seed, board))


def run_attached(port, rig_address=None):
    # The interactive table on a board already running at `port` (its
    # device, found with --port auto or given); lights, chips, LOCK, the
    # key, reset and power only through a rig at `rig_address`.
    return _guarded(lambda: _run_attached(port, rig_address))


def _guarded(body):
    handlers = {signum: signal.signal(signum, _quit) for signum in (signal.SIGTERM,
                                                                     signal.SIGHUP)}
    try:
        return body()
    except _Quit:
        return 0  # before the screen was up; the board is stopped all the same
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def _terminal():
    # Whether the terminal draws box lines (UTF-8), and whether in colour.
    locale.setlocale(locale.LC_ALL, "")
    fancy = locale.getpreferredencoding(False).lower().replace("-", "") == "utf8"
    os.environ.setdefault("ESCDELAY", "25")
    return fancy, not os.environ.get("NO_COLOR")


def _run(flash, micropython, seed, board=None):
    fancy, colour = _terminal()
    faults = io.StringIO()
    if board is None:
        board = VirtualBoard(flash=flash, micropython=micropython, seed=seed, stderr=faults)
    else:
        board.stderr = faults
    board.start(power=False)
    closing = []
    try:
        # Exclusive, as every board command: a second program is told the
        # port is held, rather than racing the table for its replies.
        link = Link(board.serial_path, timeout=COMMAND_TIMEOUT, exclusive=True)
        closing.append(link.close)
        board.power(True)  # after the port is open, so "started" is seen
        hands_rig, view_rig = TableRig(board.rig_address), TableRig(board.rig_address)
        closing += [hands_rig.close, view_rig.close]
        notes = [("%s: serial %s, rig %s" % (getattr(board, "title", "virtual board"),
                                             board.serial_path, board.rig_address), "dim"),
                 ("flash %s" % board.flash, "dim")]
        if seed is not None:
            notes.append(("TEST SEED %d: the hit values are predictable; never for play"
                          % seed, "seed"))
        clock = RigChipClock(parse_address(board.rig_address))
        closing.append(clock.close)
        feed = BoardFeed(link, clock=clock)
        meters = _play(board, feed, hands_rig, view_rig, notes, seed, fancy, colour)
    finally:
        _close_all(closing)
        board.stop()
    if meters and meters.get("config"):
        summary = "uthctl sim: meter %s (%s, cycle %d, round %d) kept in %s" % (
            money(meters["meter"]), meters["config"], meters["cycle"], meters["round"],
            board.flash)
    else:
        summary = "uthctl sim: flash image %s" % board.flash
    try:
        print(summary + ("\n" + faults.getvalue().rstrip() if faults.getvalue() else ""))
    except OSError:
        pass  # the terminal is gone (SIGHUP)
    return 0


def _run_attached(port, rig_address):
    fancy, colour = _terminal()
    device = ports.resolve(port)
    closing = []
    try:
        # Exclusive, as mpremote: a second program on the port is refused.
        # Opening sends a line end only; never Ctrl-C, which would stop
        # the controller.
        link = Link(device, timeout=COMMAND_TIMEOUT, exclusive=True)
        closing.append(link.close)
        hands_rig = view_rig = None
        if rig_address is not None:
            hands_rig, view_rig = open_rig(rig_address), open_rig(rig_address)
            closing += [hands_rig.close, view_rig.close]
        board = AttachedBoard(device, rig_address, hands_rig)
        notes = [("attached to %s, rig %s" % (device, rig_address or NO_RIG), "dim")]
        clock = WALL  # a real board's; or, behind a rig port, its board's own
        if rig_address is not None and is_address(rig_address):
            clock = RigChipClock(parse_address(rig_address))
            closing.append(clock.close)
        host = BoardFeed(link, reopen=lambda: Link(device, timeout=COMMAND_TIMEOUT,
                                                  end_line=False, exclusive=True), clock=clock)
        _play(board, host, hands_rig, view_rig, notes, None, fancy, colour)
    finally:
        _close_all(closing)
    print("uthctl sim: left the board at %s running" % device)
    return 0


def _play(board, host, hands_rig, view_rig, notes, seed, fancy, colour):
    # The screen until the person quits; the board's last meters.
    hands = Hands(hands_rig, host, None)
    view = TableView(board, host, hands, view_rig, seed=seed, fancy=fancy)
    hands.tell_slow_waits()  # on the view's message line, which the view gave hands
    for text, style in notes:
        view.note(text, style)
    host.start()
    hands.start()
    try:
        curses.wrapper(screen_loop, view, colour)
    except (KeyboardInterrupt, _Quit):
        pass  # Ctrl-C, a closed terminal or SIGTERM quit as q does
    finally:
        hands.stop()
        hands.join(3.0)
        host.stop()
        host.join(2.0)
        host.close()
    return host.meters


def _close_all(closing):
    for close in closing:
        try:
            close()
        except OSError:
            pass
