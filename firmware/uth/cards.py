# Card notation: rank then suit, "As Td 9c"; "10" is accepted for ten.
# A card is one small int, rank * 4 + suit, with rank 0 = deuce .. 12 = ace
# and suit 0..3 = clubs, diamonds, hearts, spades.

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def parse_card(token):
    if not isinstance(token, str) or len(token) not in (2, 3):
        raise ValueError("unknown card %r" % (token,))
    rank_text = token[:-1].upper()
    if rank_text == "10":
        rank_text = "T"
    rank = RANKS.find(rank_text) if len(rank_text) == 1 else -1
    suit = SUITS.find(token[-1].lower())
    if rank < 0 or suit < 0:
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
