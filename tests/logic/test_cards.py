# Card notation: ranks 23456789TJQKA ("10" for ten), suits cdhs.
from uth.cards import card_name, parse_card, parse_cards


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
