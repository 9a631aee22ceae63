# A round as the table hands it over, checked whole: every card known and
# dealt once, the right counts, known paytables and settings, wagers in whole
# non-negative cents up to the stake limit. Any fault raises ValueError
# saying where and what.
from micropython import const

from . import paytables
from .cards import card_name, parse_card
from .seats import MAX_SEAT

DEFAULT_SETTINGS = {"bad_beat_mode": "two_way", "bad_beat_on_fold": "action"}
BAD_BEAT_MODES = ("two_way", "player_loses")  # rules.md, "Bad Beat"
_SETTING_CHOICES = {
    "bad_beat_mode": BAD_BEAT_MODES,
    "bad_beat_on_fold": ("action", "lose"),
}
_ROUND_KEYS = ("round", "paytables", "settings", "max_payout_cents", "max_stake_cents", "dealer",
               "board", "seats")
# The most one side wager's stake may be, in cents, unless the round (the
# table's setting max_stake_cents) says otherwise; and the most that may say.
MAX_STAKE_CENTS = const(100_000)
STAKE_CEILING_CENTS = const(100_000_000)
# The most a payout limit may say ($10,000,000): a guard against a mistyped
# figure, as the stake's ceiling is, and still a small int on a board.
PAYOUT_CEILING_CENTS = const(1_000_000_000)
_SEAT_KEYS = ("seat", "cards", "folded", "wagers")


class Seat:
    def __init__(self, number, cards, hand, folded, wagers):
        self.number = number
        self.cards = cards  # the two hole cards
        self.hand = hand  # bytes: hole cards then the board
        self.folded = folded
        self.wagers = wagers  # ((wager, cents), ...) in settlement order


class Round:
    def __init__(self, label, tables, settings, dealer, dealer_hand, board, seats, limits):
        self.label = label  # the caller's round identifier, echoed back
        self.tables = tables
        self.settings = settings
        self.limits = limits  # wager -> the most one wager of it wins in the round
        self.dealer = dealer
        self.dealer_hand = dealer_hand
        self.board = board
        self.seats = seats


def _fault(message, *args):
    # The message is formatted only for a round that fails, because formatting
    # every check's message up front would be most of a good round's settlement
    # time (docs/benchmarks.md, "The round's time").
    return ValueError(message % args if args else message)


def _short(value):
    # A value as a refusal quotes it: a mistyped 10**200 is cut, not echoed whole.
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


def _place(where):
    # A seat is named by its number until a message needs its text, because a
    # text made for every seat of every round would be a new string each time.
    return "seat %d" % where if type(where) is int else where


def _check_keys(data, allowed, where, after=""):
    if not isinstance(data, dict):
        raise _fault("%s%s must be an object", _place(where), after)
    for key in data:
        if key not in allowed:
            raise _fault("unknown key %r in %s%s", key, _place(where), after)


def _cards(tokens, count, where, owners):
    # Parses `count` cards, recording who holds each so a repeat names both places.
    if not isinstance(tokens, list) or len(tokens) != count:
        raise _fault("%s needs %d cards", _place(where), count)
    codes = []
    for token in tokens:
        try:
            code = parse_card(token)
        except ValueError as error:
            raise _fault("%s: %s", _place(where), error) from None
        if code in owners:
            raise _fault("%s: duplicate card %s (also %s)", _place(where), card_name(code),
                         _place(owners[code]))
        owners[code] = where
        codes.append(code)
    return codes


def _tables(data):
    if not isinstance(data, dict):
        raise _fault("paytables must be an object")
    tables = {}
    for wager in data:
        if wager not in paytables.SETTLED_WAGERS:
            raise _fault("unknown wager %r in paytables", wager)
        tables[wager] = paytables.get(wager, data[wager])
    return tables


def _settings(data):
    _check_keys(data, _SETTING_CHOICES, "settings")
    settings = dict(DEFAULT_SETTINGS)
    for name in data:
        if data[name] not in _SETTING_CHOICES[name]:
            raise _fault("setting %s must be one of %s, not %r", name,
                         ", ".join(_SETTING_CHOICES[name]), data[name])
        settings[name] = data[name]
    return settings


def limits(data):
    # The payout limitation of 653a.12(h): the most one wager wins in a round,
    # in whole cents: one figure for every wager, or {wager: cents}; None or
    # absent: no limit. Gives wager -> cents for the wagers limited.
    if data is None:
        return {}
    if not isinstance(data, dict):
        # One figure for every wager: a bad one is named as it was given.
        if data is not None and (type(data) is not int or
                                 not 1 <= data <= PAYOUT_CEILING_CENTS):
            raise _fault("max_payout_cents must be whole cents from 1 to %d (one figure for "
                         "every wager), {wager: cents} (one a wager), or null for no limit, "
                         "not %s", PAYOUT_CEILING_CENTS, _short(data))
        data = {wager: data for wager in paytables.SETTLED_WAGERS}
    limited = {}
    for wager in data:
        if wager not in paytables.SETTLED_WAGERS:
            raise _fault("unknown wager %r in max_payout_cents", wager)
        cents = data[wager]
        if cents is None:
            continue
        if type(cents) is not int or not 1 <= cents <= PAYOUT_CEILING_CENTS:
            raise _fault("max_payout_cents for %s must be whole cents from 1 to %d, or null "
                         "for no limit, not %s", wager, PAYOUT_CEILING_CENTS, _short(cents))
        limited[wager] = cents
    return limited


def stake_limit(cents):
    # max_stake_cents: whole cents from 1 to STAKE_CEILING_CENTS.
    if type(cents) is not int or not 1 <= cents <= STAKE_CEILING_CENTS:
        raise _fault("max_stake_cents must be whole cents from 1 to %d", STAKE_CEILING_CENTS)
    return cents


def _wagers(data, tables, where, most):
    _check_keys(data, paytables.SETTLED_WAGERS, where, " wagers")
    wagers = []
    for wager in paytables.SETTLED_WAGERS:
        cents = data.get(wager, 0)
        if type(cents) is not int or cents < 0:
            raise _fault("%s: %s wager must be whole cents, 0 or more, not %r", _place(where),
                         wager, cents)
        if cents > most:
            raise _fault("%s: %s wager is over the stake limit, max_stake_cents %d",
                         _place(where), wager, most)
        if cents and wager not in tables:
            raise _fault("%s wagers on %s but the round names no %s paytable", _place(where),
                         wager, wager)
        if cents:
            wagers.append((wager, cents))
    return tuple(wagers)


def _seat(data, tables, board, owners, numbers, most):
    _check_keys(data, _SEAT_KEYS, "a seat")
    number = data.get("seat")
    if type(number) is not int or not 1 <= number <= MAX_SEAT:
        raise _fault("seat number must be 1 to %d, not %r", MAX_SEAT, number)
    if number in numbers:
        raise _fault("seat %d is listed twice", number)
    numbers.append(number)
    cards = _cards(data.get("cards"), 2, number, owners)
    folded = data.get("folded", False)
    if folded is not True and folded is not False:
        raise _fault("%s: folded must be true or false", _place(number))
    wagers = _wagers(data.get("wagers", {}), tables, number, most)
    return Seat(number, cards, bytes(cards + board), folded, wagers)


def parse_round(data):
    _check_keys(data, _ROUND_KEYS, "the round")
    tables = _tables(data.get("paytables", {}))
    settings = _settings(data.get("settings", {}))
    limited = limits(data.get("max_payout_cents"))
    most = stake_limit(data.get("max_stake_cents", MAX_STAKE_CENTS))
    owners = {}
    dealer = _cards(data.get("dealer"), 2, "dealer", owners)
    board = _cards(data.get("board"), 5, "board", owners)
    seats_data = data.get("seats")
    if not isinstance(seats_data, list) or not seats_data:
        raise _fault("seats must be a non-empty list")
    numbers = []
    seats = [_seat(seat, tables, board, owners, numbers, most) for seat in seats_data]
    return Round(data.get("round"), tables, settings, dealer, bytes(dealer + board),
                 bytes(board), seats, limited)
