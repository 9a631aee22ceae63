# Ultimate Pairs over all C(52,2) = 1,326 starting hands, for every paytable.
# Counts worked by hand: AA 6 (of which Ah-Ad 1), AK suited 4, AQ/AJ suited
# 2 x 4 = 8, AK offsuit 12, KK/QQ/JJ 3 x 6 = 18, AQ/AJ offsuit 2 x 12 = 24,
# pairs 2 to T 9 x 6 = 54; the other 1,200 hands lose.
from uth.cards import card_name
from uth.settle import settle

COMMON = {"ak_suited": 4, "aq_aj_suited": 8, "ak": 12, "kk_qq_jj": 18, "aq_aj": 24,
          "pair_tens_or_less": 54, None: 1200}
WITHOUT_RED_ACES_LINE = dict(COMMON, aa=6)
WITH_RED_ACES_LINE = dict(COMMON, aa=5, ah_ad=1)
EXPECTED = {"A": WITHOUT_RED_ACES_LINE, "B": WITHOUT_RED_ACES_LINE, "C": WITH_RED_ACES_LINE,
            "D": WITH_RED_ACES_LINE, "E": WITHOUT_RED_ACES_LINE, "F": WITHOUT_RED_ACES_LINE}
ACES = ("Ac", "Ad", "Ah", "As")


def _round(letter, player, dealer):
    rest = [card_name(c) for c in range(52)
            if card_name(c) not in player and card_name(c) not in dealer]
    return {"paytables": {"ultimate_pairs": letter}, "dealer": dealer, "board": rest[:5],
            "seats": [{"seat": 1, "cards": player, "wagers": {"ultimate_pairs": 100}}]}


def _line(letter, player, dealer):
    return settle(_round(letter, player, dealer))["seats"][0]["results"]["ultimate_pairs"]


def _count(letter):
    counts = {}
    for a in range(52):
        for b in range(a + 1, 52):
            player = [card_name(a), card_name(b)]
            # Any dealer without aces: only paytable F looks at the dealer.
            dealer = [c for c in ("2c", "2d", "3c", "3d") if c not in player][:2]
            line = _line(letter, player, dealer)["category"]
            counts[line] = counts.get(line, 0) + 1
    return counts


def test_every_starting_hand_under_every_paytable():
    for letter in "ABCDEF":
        counts = _count(letter)
        assert sum(counts.values()) == 1326
        assert counts == EXPECTED[letter], (letter, counts)


def test_paytable_f_pays_aces_against_the_dealers_aces():
    for i in range(4):
        for j in range(i + 1, 4):
            player = [ACES[i], ACES[j]]
            dealer = [ace for ace in ACES if ace not in player]
            result = _line("F", player, dealer)
            assert (result["category"], result["net"]) == ("aa_and_dealer_aa", 100000)
            # Without paytable F the dealer's cards do not count.
            assert _line("A", player, dealer)["category"] == "aa"
