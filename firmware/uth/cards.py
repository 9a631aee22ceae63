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


def parse_card(token):
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
    return RANKS[code >> 2] + SUITS[code & 3]


def card_names(codes):
    return [card_name(code) for code in codes]


def rank_of(code):
    return code >> 2


def suit_of(code):
    return code & 3
