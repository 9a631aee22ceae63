# uthctl sim (interactive): the virtual table in a terminal. It starts the
# virtual board (boards/virtual.py) and is then a host like any other: the
# person's keys move the table's pins through the rig port (links/rig.py), and
# the table's state, meters and events come over the board's serial link
# (links/hostlink.py).
#
#   threads   main     curses: draws, reads keys, polls the rig's pin state
#                      (screen.py, view.py, panels.py)
#             link     the one reader of the serial port: events, replies,
#                      and a status/meters poll twice a second (none while the
#                      board sits at its REPL, which would echo each poll)
#                      (hostlink.py)
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
from ..links.hostlink import Link
from .hands import Hands, TableRig
from .hostlink import COMMAND_TIMEOUT, HostLink
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
    handlers = {signum: signal.signal(signum, _quit) for signum in (signal.SIGTERM,
                                                                     signal.SIGHUP)}
    try:
        return _run(flash, micropython, seed, board)
    except _Quit:
        return 0  # before the screen was up; the board is stopped all the same
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def _run(flash, micropython, seed, board=None):
    locale.setlocale(locale.LC_ALL, "")
    fancy = locale.getpreferredencoding(False).lower().replace("-", "") == "utf8"
    colour = not os.environ.get("NO_COLOR")
    os.environ.setdefault("ESCDELAY", "25")
    faults = io.StringIO()
    if board is None:
        board = VirtualBoard(flash=flash, micropython=micropython, seed=seed, stderr=faults)
    else:
        board.stderr = faults
    board.start(power=False)
    closing = []
    try:
        link = Link(board.serial_path, timeout=COMMAND_TIMEOUT)
        closing.append(link.close)
        board.power(True)  # after the port is open, so "started" is seen
        host = HostLink(link)
        hands_rig, view_rig = TableRig(board.rig_address), TableRig(board.rig_address)
        closing += [hands_rig.close, view_rig.close]
        hands = Hands(hands_rig, host, None)
        view = TableView(board, host, hands, view_rig, seed=seed, fancy=fancy)
        view.note("%s: serial %s, rig %s" % (getattr(board, "title", "virtual board"),
                                               board.serial_path, board.rig_address), "dim")
        view.note("flash %s" % board.flash, "dim")
        if seed is not None:
            view.note("TEST SEED %d: the hit values are predictable; never for play" % seed,
                      "seed")
        host.start()
        hands.start()
        closing.insert(0, host.stop)
        closing.insert(0, hands.stop)
        try:
            curses.wrapper(screen_loop, view, colour)
        except (KeyboardInterrupt, _Quit):
            pass  # Ctrl-C, a closed terminal or SIGTERM quit as q does
        finally:
            hands.stop()
            hands.join(3.0)
            host.stop()
            host.join(2.0)
        meters = host.meters
    finally:
        for close in closing:
            try:
                close()
            except OSError:
                pass
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
