# The paytables of 58 Pa. Code Chapter 653b and the Trips and Blind tables of
# Chapter 653a, as printed. Each line is (name, to, per): "to" for "per" odds,
# "per" 1 everywhere but the Blind's flush (3 to 2). Line names are hand
# categories, except Ultimate Pairs, whose lines are its printed combinations.
# Dates are the regulation's source notes (sections.py); Chapter 653a's are not
# in the reference text this firmware was built from, so they are None (unknown).
from . import sections

_S653B_2_5 = sections.dates("653b.2")
_S653A = sections.dates("653a.12")

_TRIPS_LINES = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
                "straight", "three_of_a_kind")


def _lines(names, odds):
    # A table's lines, made only when a table is used, because every table's
    # line tuples would take heap a board never reads (docs/heap.md, "The census").
    # An odds entry is "to" (per 1), (to, per), or None where the table has
    # no such line.
    lines = []
    for i in range(len(names)):
        if odds[i] is not None:
            to, per = (odds[i], 1) if type(odds[i]) is int else odds[i]
            lines.append((names[i], to, per))
    return tuple(lines)


_BOARD_LINES = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
                "straight", "three_of_a_kind", "two_pair", "pair")

# Ultimate Pairs lines in the order printed, which is the order they are tried.
PAIRS_LINES = ("aa_and_dealer_aa", "ah_ad", "aa", "ak_suited", "aq_aj_suited", "ak",
               "kk_qq_jj", "aq_aj", "pair_tens_or_less")
_BLIND_LINES = _TRIPS_LINES[:6]
_NA = None

# wager -> letter -> (section, dates, (line names, odds)), odds as _lines takes them
TABLES = {
    "trips": {
        "A": ("653a.12(c)", _S653A, (_TRIPS_LINES, (50, 40, 30, 9, 7, 4, 3))),
        "B": ("653a.12(c)", _S653A, (_TRIPS_LINES, (50, 40, 30, 8, 6, 5, 3))),
        "C": ("653a.12(c)", _S653A, (_TRIPS_LINES, (50, 40, 30, 8, 7, 4, 3))),
        "D": ("653a.12(c)", _S653A, (_TRIPS_LINES, (50, 40, 20, 7, 6, 5, 3))),
        "E": ("653b.2(b)", _S653B_2_5, (_TRIPS_LINES, (50, 40, 30, 7, 6, 5, 3))),
    },
    "bad_beat": {
        "C": ("653b.3(b)", _S653B_2_5, (_TRIPS_LINES[1:], (2500, 500, 50, 30, 20, 9))),
    },
    "play_the_board": {
        "A": ("653b.4(f)", _S653B_2_5, (_BOARD_LINES, (1000, 200, 100, 50, 40, 25, 7, 3, 1))),
        "B": ("653b.4(f)", _S653B_2_5, (_BOARD_LINES, (1000, 200, 100, 50, 40, 25, 6, 3, 1))),
        "C": ("653b.4(f)", _S653B_2_5, (_BOARD_LINES, (1000, 200, 100, 50, 40, 20, 6, 3, 1))),
    },
    "ultimate_pairs": {
        "A": ("653b.5(f)", _S653B_2_5, (PAIRS_LINES, (_NA, _NA, 30, 25, 20, 15, 10, 5, 3))),
        "B": ("653b.5(f)", _S653B_2_5, (PAIRS_LINES, (_NA, _NA, 30, 20, 20, 10, 5, 10, 5))),
        "C": ("653b.5(f)", _S653B_2_5, (PAIRS_LINES, (_NA, 100, 30, 20, 20, 10, 4, 10, 4))),
        "D": ("653b.5(f)", _S653B_2_5, (PAIRS_LINES, (_NA, 50, 25, 20, 20, 10, 5, 10, 5))),
        "E": ("653b.5(f)", _S653B_2_5, (PAIRS_LINES, (_NA, _NA, 25, 20, 20, 10, 5, 10, 5))),
        "F": ("653b.5(f)", _S653B_2_5, (PAIRS_LINES, (1000, _NA, 30, 25, 20, 15, 10, 5, 3))),
    },
    # The Blind pays only when the player's hand beats the dealer's; "to" 0 is a push.
    # A: hands below a straight push; B: hands below a flush push. Its flush pays 3 to 2.
    "blind": {
        "A": ("653a.12(b)", _S653A, (_BLIND_LINES, (500, 50, 10, 3, (3, 2), 1))),
        "B": ("653a.12(b)", _S653A, (_BLIND_LINES, (500, 50, 10, 3, (3, 2), 0))),
    },
}

# The Must-Hit-By Mystery bonus configurations of 653b.1 (and their dates)
# live in mystery/configs.py.

SETTLED_WAGERS = ("trips", "bad_beat", "play_the_board", "ultimate_pairs")


class Paytable:
    def __init__(self, wager, letter, section, dates, lines):
        self.wager = wager
        self.letter = letter
        self.section = section
        self.effective = dates[0]
        self.expires = dates[1]
        self.lines = lines

    def odds(self, line):
        # (to, per) for a line the table has; None for a line it does not (N/A).
        for name, to, per in self.lines:
            if name == line:
                return to, per
        return None


# wager -> letter, as given -> Paytable: a round names its tables each time.
# Two look-ups by the names as they came, not one by the names joined,
# because a joined string is a new one at every look-up and new strings are
# slow on the board (docs/benchmarks.md, "The round's time").
_made = {}


def get(wager, letter):
    # Letters in either case, as cards are: the regulation prints them upper.
    # A Paytable is never changed, so one object serves every round that
    # names it, found by the names as given before any other work.
    try:
        return _made[wager][letter]
    except (KeyError, TypeError):  # not made yet, or not names at all
        pass
    given = letter
    if isinstance(letter, str):
        letter = letter.upper()
    letters = TABLES.get(wager) if isinstance(wager, str) else None
    if letters is None:
        raise ValueError("unknown wager %r (known: %s)" % (wager, ", ".join(sorted(TABLES))))
    entry = letters.get(letter) if isinstance(letter, str) else None
    if entry is None:
        raise ValueError("no paytable %r for %s (known: %s)"
                         % (letter, wager, ", ".join(sorted(letters))))
    made_letters = _made.get(wager)
    if made_letters is None:
        made_letters = _made[wager] = {}
    made = made_letters.get(letter)
    if made is None:
        made = made_letters[letter] = Paytable(wager, letter, entry[0], entry[1],
                                               _lines(*entry[2]))
    made_letters[given] = made
    return made


def all_tables():
    for wager in sorted(TABLES):
        for letter in sorted(TABLES[wager]):
            yield get(wager, letter)
