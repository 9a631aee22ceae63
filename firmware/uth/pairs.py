# Ultimate Pairs (653b.5): which printed lines the player's two cards match,
# in the printed order. Paytable F's first line also needs the dealer's aces.
from micropython import const

_ACE = const(12)
_KING = const(11)
_QUEEN = const(10)
_JACK = const(9)
_ACE_OF_HEARTS = const(12 * 4 + 2)
_ACE_OF_DIAMONDS = const(12 * 4 + 1)


def _pair_lines(rank, cards, dealer):
    if rank != _ACE:
        return ("kk_qq_jj",) if rank >= _JACK else ("pair_tens_or_less",)
    lines = []
    if dealer is not None and dealer[0] >> 2 == _ACE and dealer[1] >> 2 == _ACE:
        lines.append("aa_and_dealer_aa")
    if _ACE_OF_HEARTS in cards and _ACE_OF_DIAMONDS in cards:
        lines.append("ah_ad")
    lines.append("aa")
    return lines


def pairs_lines(cards, dealer=None):
    # cards: the player's two card codes; dealer: the dealer's two, or None.
    high = max(cards[0] >> 2, cards[1] >> 2)
    low = min(cards[0] >> 2, cards[1] >> 2)
    if high == low:
        return _pair_lines(high, cards, dealer)
    if high != _ACE or low < _JACK:
        return ()
    suited = cards[0] & 3 == cards[1] & 3
    if low == _KING:
        return ("ak_suited", "ak") if suited else ("ak",)
    return ("aq_aj_suited", "aq_aj") if suited else ("aq_aj",)
