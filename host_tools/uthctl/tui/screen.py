# The screen: a Canvas of styled text that the view draws on, and the
# curses loop that paints it and hands the person's keys to the view.
import curses

from .terminal import Terminal


class Canvas:
    # Text placed at (row, column) with a style; the painter turns it into
    # curses calls, tests into plain text.
    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.items = []

    def put(self, row, col, text, style="normal"):
        if 0 <= row < self.height and col < self.width:
            self.items.append((row, col, text[:max(0, self.width - col)], style))

    def text(self):
        rows = [[" "] * self.width for _ in range(self.height)]
        for row, col, text, _ in self.items:
            for i, ch in enumerate(text):
                if 0 <= col + i < self.width:
                    rows[row][col + i] = ch
        return "\n".join("".join(r).rstrip() for r in rows)


_STYLES = {
    # style: (foreground or None, attributes)
    "normal": (None, 0), "bold": (None, "bold"), "dim": (None, "dim"),
    "head": ("cyan", "bold"), "frame": ("blue", 0), "help": (None, "reverse"),
    "led": ("red", "bold"), "on": ("green", "bold"), "chip": ("yellow", "bold"),
    "jackpot": ("yellow", "bold reverse"), "hit": ("yellow", "bold"),
    "error": ("red", "bold"), "warn": ("magenta", "bold"), "seed": ("red", "bold reverse"),
    "select": (None, "reverse"),
}


class Painter:
    def __init__(self, screen, colour):
        self.screen = screen
        self.attrs = {}
        names = {"red": curses.COLOR_RED, "green": curses.COLOR_GREEN,
                 "yellow": curses.COLOR_YELLOW, "blue": curses.COLOR_BLUE,
                 "magenta": curses.COLOR_MAGENTA, "cyan": curses.COLOR_CYAN}
        pairs = {}
        if colour:
            try:
                curses.use_default_colors()
                background = -1
            except curses.error:
                background = curses.COLOR_BLACK
            for number, (name, value) in enumerate(names.items(), 1):
                curses.init_pair(number, value, background)
                pairs[name] = curses.color_pair(number)
        flags = {"bold": curses.A_BOLD, "dim": curses.A_DIM, "reverse": curses.A_REVERSE}
        for style, (fg, attr) in _STYLES.items():
            value = 0
            for word in str(attr or "").split():
                value |= flags[word]
            if fg and fg in pairs:
                value |= pairs[fg]
            self.attrs[style] = value

    def paint(self, canvas):
        self.screen.erase()
        for row, col, text, style in canvas.items:
            if row == canvas.height - 1 and col + len(text) >= canvas.width:
                text = text[:canvas.width - col - 1]  # the last cell cannot be written
            try:
                self.screen.addstr(row, col, text, self.attrs.get(style, 0))
            except curses.error:
                pass
        self.screen.noutrefresh()
        curses.doupdate()


def screen_loop(screen, view, colour):
    try:
        curses.curs_set(0)
    except curses.error:
        pass
    screen.keypad(True)
    screen.idlok(False)  # plain redraws, no scrolling regions: simpler terminals keep up
    screen.timeout(50)
    painter = Painter(screen, colour and curses.has_colors())
    terminal = Terminal()
    while True:
        view.update()
        height, width = screen.getmaxyx()
        canvas = Canvas(width, height)
        view.draw(canvas)
        painter.paint(canvas)
        ch = screen.getch()
        if ch == -1 and not terminal.present():
            return  # closed with no SIGHUP to this process: ends as q does
        while ch != -1:
            if not view.key(ch):
                return
            ch = screen.getch() if ch != curses.KEY_RESIZE else -1
