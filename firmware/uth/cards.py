# Card notation: rank then suit, "As Td 9c"; "10" is accepted for ten.
# A card is one small int, rank * 4 + suit, with rank 0 = deuce .. 12 = ace
# and suit 0..3 = clubs, diamonds, hearts, spades.

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def _symbols():
    # Each byte's meaning in a card's name: rank + 1 for a rank in either
    # case, 16 + suit for a suit in either case, 0 for neither.
    table = bytearray(256)
    for i in range(len(RANKS)):
        table[ord(RANKS[i])] = table[ord(RANKS[i].lower())] = i + 1
    for i in range(len(SUITS)):
        table[ord(SUITS[i])] = table[ord(SUITS[i].upper())] = 16 + i
    return bytes(table)


_SYMBOL = _symbols()
_RANK_BYTES = RANKS.encode()
_SUIT_BYTES = SUITS.encode()


def parse_card(token):
    # Read as bytes, through _SYMBOL, because a rank or suit cut from the
    # token as a string would be a new string each time, and new strings are
    # slow on the board (docs/benchmarks.md, "The round's time").
    try:
        name = token.encode()
    except (AttributeError, UnicodeError):  # not text, or a lone surrogate (CPython)
        name = b""
    size = len(name)
    if size == 3 and name[0] == 0x31 and name[1] == 0x30:  # "10": ten
        name, size = b"T" + name[2:], 2
    if size == 2:
        rank, suit = _SYMBOL[name[0]], _SYMBOL[name[1]]
        if 0 < rank < 16 and suit >= 16:
            return (rank - 1) * 4 + suit - 16
    raise ValueError("unknown card %r" % (token,))


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


def names_text(codes):
    # The cards' names run together ("AsKd"), made as bytes and decoded
    # once: one new string, rather than one a card and one for the whole.
    text = bytearray(2 * len(codes))
    for i in range(len(codes)):
        text[2 * i] = _RANK_BYTES[codes[i] >> 2]
        text[2 * i + 1] = _SUIT_BYTES[codes[i] & 3]
    return text.decode()


def card_names(codes):
    return [card_name(code) for code in codes]


def rank_of(code):
    return code >> 2


def suit_of(code):
    return code & 3
