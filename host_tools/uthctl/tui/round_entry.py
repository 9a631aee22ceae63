# A round typed at the interactive table, as a dealer terminal would send
# it: the dealer's two cards, the board's five, then each seat's two cards,
#
#   QsKs 9sTsJs9c9d 1:9h2c 3:AhAd 5:7c2d/f
#
# (a seat's "/f": it folded). Every side wager the table offers (its
# paytables setting) is made at each seat at STAKE_CENTS; the board settles
# the round (`round`) and its results are shown as lines.
from mystery.configs import MICROS_PER_CENT
from mystery.money import dollars
from uth.paytables import SETTLED_WAGERS

from ..errors import InputError

STAKE_CENTS = 500
PROMPT = "round: dealer board seat:cards ... (e.g. QsKs 9sTsJs9c9d 1:9h2c 3:AhAd/f)"


def _pairs(text, count, what):
    if len(text) != 2 * count:
        raise InputError("%s: %d cards, written together (e.g. %s)"
                         % (what, count, "QsKs" if count == 2 else "9sTsJs9c9d"))
    return [text[i:i + 2] for i in range(0, len(text), 2)]


def parse_entry(text, offered):
    # The round as the board's `round` command takes it; ValueError says why not.
    if not offered:
        raise InputError("the table offers no side wager: set its paytables in service mode "
                         "(s holds the key, t opens the settings)")
    words = text.split()
    if len(words) < 3:
        raise InputError("type the dealer's cards, the board's and at least one seat")
    seats = []
    for word in words[2:]:
        number, _, cards = word.partition(":")
        folded = cards.endswith("/f")
        cards = cards[:-2] if folded else cards
        if not number.isdigit():
            raise InputError("a seat is written seat:cards, e.g. 1:9h2c, not %r" % word)
        seats.append({"seat": int(number), "cards": _pairs(cards, 2, "seat " + number),
                      "folded": folded,
                      "wagers": {wager: STAKE_CENTS for wager in SETTLED_WAGERS
                                 if wager in offered}})
    return {"dealer": _pairs(words[0], 2, "the dealer"),
            "board": _pairs(words[1], 5, "the board"), "seats": seats}


def _net(cents):
    return ("+" if cents >= 0 else "") + dollars(cents * MICROS_PER_CENT)


def settlement_lines(reply):
    # One line a seat: each wager's outcome and net.
    lines = ["round settled on the board (log record %s):" % reply.get("seq")]
    for seat in reply.get("seats", []):
        parts = []
        for wager, outcome in seat["results"].items():
            what = "loses" if outcome["odds"] is None else outcome["category"].replace("_", " ")
            part = "%s %s %s" % (wager.replace("_", " "), what, _net(outcome["net"]))
            if outcome.get("limited"):
                part += " (limited from %s)" % _net(outcome["unlimited"])
            parts.append(part)
        lines.append("  seat %d: %s" % (seat["seat"], "; ".join(parts)))
    return lines
