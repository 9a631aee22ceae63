# Card notation: ranks 23456789TJQKA ("10" for ten), suits cdhs.
from lcg import Lcg
from uth.cards import card_name, names_text, parse_card, parse_cards


def _raises(call, *args, needle=""):
    try:
        call(*args)
    except ValueError as error:
        assert needle in str(error), "%r does not mention %r" % (str(error), needle)
        return
    raise AssertionError("no ValueError for %r" % (args,))


def test_every_card_round_trips_and_codes_are_distinct():
    names = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    codes = [parse_card(name) for name in names]
    assert sorted(codes) == list(range(52))
    assert [card_name(code) for code in codes] == names


def test_each_name_and_case_gives_rank_times_four_plus_suit():
    # The layout of the header, rank 0 = deuce, suit 0..3 = c d h s, in every
    # spelling the notation allows, and back to the written name.
    for rank in range(13):
        for suit in range(4):
            r, s = "23456789TJQKA"[rank], "cdhs"[suit]
            spellings = [r + s, r.lower() + s, r + s.upper(), r.lower() + s.upper()]
            if r == "T":
                spellings += ["10" + s, "10" + s.upper()]
            for name in spellings:
                assert parse_card(name) == rank * 4 + suit, name
            assert card_name(rank * 4 + suit) == r + s


def test_ten_may_be_written_10_and_case_is_forgiven():
    assert parse_card("10h") == parse_card("Th") == parse_card("th")
    assert parse_card("aS") == parse_card("As")


def test_order_is_rank_major():
    assert parse_card("2c") < parse_card("2s") < parse_card("3c") < parse_card("As")


def test_string_of_cards():
    assert card_name(parse_cards("As Td 9c")[1]) == "Td"


def test_bad_tokens_are_named():
    for token in ("1c", "Ax", "A", "", "10", "11h", "Asd", "zz"):
        _raises(parse_card, token, needle=repr(token))
    _raises(parse_card, None, needle="None")
    for token in (["As"], {"As": 1}, 51, b"As"):  # what JSON or a caller may give
        _raises(parse_card, token, needle=repr(token))


def test_duplicates_are_refused():
    _raises(parse_cards, "As Kd as", needle="duplicate card As")
    _raises(parse_cards, ["Th", "10h"], needle="Th")


def _reference(token):
    # The notation read as the header gives it, or None for no card.
    if not isinstance(token, str) or len(token) not in (2, 3):
        return None
    rank_text, suit = token[:-1], token[-1].lower()
    rank_text = "T" if rank_text == "10" else rank_text.upper()
    if len(rank_text) != 1 or rank_text not in "23456789TJQKA" or suit not in "cdhs":
        return None
    return "23456789TJQKA".index(rank_text) * 4 + "cdhs".index(suit)


def test_random_tokens_read_as_the_notation_says():
    # Short tokens from the notation's symbols and their neighbours, past
    # ASCII among them, each read as the reference reads it.
    symbols = "23456789TJQKAtjqkacdhsCDHS10xX \u00e9\u00c1\u2660\U0001F0A1"
    lcg = Lcg(52)
    for _ in range(3000):
        token = "".join(symbols[lcg.below(len(symbols))] for _ in range(lcg.below(5)))
        expected = _reference(token)
        if expected is None:
            _raises(parse_card, token, needle=repr(token))
        else:
            assert parse_card(token) == expected, token


def test_names_run_together_as_the_records_keep_them():
    lcg = Lcg(7)
    for count in (0, 1, 2, 5, 7):
        codes = lcg.deal(count)
        assert names_text(codes) == "".join(card_name(code) for code in codes)
        assert names_text(bytes(codes)) == names_text(codes)
    assert names_text([51, 0, 34]) == "As2cTh"


def test_a_lone_surrogate_is_no_card():
    # CPython's json gives one for "\\ud800" (the board's check refuses the escape).
    import json

    _raises(parse_card, json.loads('"A\\ud800"'), needle="unknown card")
