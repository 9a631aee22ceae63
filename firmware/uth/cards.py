# Card notation: rank then suit, "As Td 9c"; "10" is accepted for ten.
# A card is one small int, rank * 4 + suit, with rank 0 = deuce .. 12 = ace
# and suit 0..3 = clubs, diamonds, hearts, spades.

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def _index(symbols):
    # Symbol -> index, either case: one dict look-up per character, which on
    # the board costs a fraction of upper() and find() on a new string.
    found = {}
    for i in range(len(symbols)):
        found[symbols[i]] = i
        found[symbols[i].lower()] = i
    return found


_RANK_OF = _index(RANKS)
_SUIT_OF = _index(SUITS.upper())
_TEN = _RANK_OF["T"]

# Every card's name as it is written (rank upper case, suit lower), by code,
# spelt out here: these are constants of the compiled module, where a name
# put together at run time is a new string, which on the board costs a
# search of every interned string (about 0.1 ms with the firmware loaded).
_NAMES = (
    "2c", "2d", "2h", "2s", "3c", "3d", "3h", "3s", "4c", "4d", "4h", "4s",
    "5c", "5d", "5h", "5s", "6c", "6d", "6h", "6s", "7c", "7d", "7h", "7s",
    "8c", "8d", "8h", "8s", "9c", "9d", "9h", "9s", "Tc", "Td", "Th", "Ts",
    "Jc", "Jd", "Jh", "Js", "Qc", "Qd", "Qh", "Qs", "Kc", "Kd", "Kh", "Ks",
    "Ac", "Ad", "Ah", "As",
)
_CODE_OF = {_NAMES[code]: code for code in range(52)}  # about 0.5 KB on a Pico


def parse_card(token):
    if isinstance(token, str):
        code = _CODE_OF.get(token)  # a card as written: one look-up, no new string
        if code is not None:
            return code
    rank = suit = None
    if isinstance(token, str):
        if len(token) == 2:
            rank = _RANK_OF.get(token[0])
        elif len(token) == 3 and token[:2] == "10":
            rank = _TEN
        suit = _SUIT_OF.get(token[-1]) if token else None
    if rank is None or suit is None:
        raise ValueError("unknown card %r" % (token,))
    return rank * 4 + suit


def parse_cards(tokens):
    # Parses a list of tokens (or one space-separated string); refuses duplicates.
    if isinstance(tokens, str):
        tokens = tokens.split()
    codes = []
    for token in tokens:
        code = parse_card(token)
        if code in codes:
            raise ValueError("duplicate card %s" % card_name(code))
        codes.append(code)
    return codes


def card_name(code):
    return _NAMES[code]


def card_names(codes):
    return [card_name(code) for code in codes]


def rank_of(code):
    return code >> 2


def suit_of(code):
    return code & 3
