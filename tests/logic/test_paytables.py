# Every paytable number against the regulation as printed (58 Pa. Code 653b.2-
# 653b.5; 653a.12(b)-(c) as rules.md quotes it), typed in here column by
# column as the text prints them, independently of uth/paytables.py.
from uth import paytables

TRIPS_ROWS = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
              "straight", "three_of_a_kind")
TRIPS = {
    "A": (50, 40, 30, 9, 7, 4, 3),
    "B": (50, 40, 30, 8, 6, 5, 3),
    "C": (50, 40, 30, 8, 7, 4, 3),
    "D": (50, 40, 20, 7, 6, 5, 3),
    "E": (50, 40, 30, 7, 6, 5, 3),  # 653b.2(b)
}
BAD_BEAT_ROWS = ("straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
                 "three_of_a_kind")
BAD_BEAT = {"C": (2500, 500, 50, 30, 20, 9)}  # 653b.3(b)
BOARD_ROWS = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
              "straight", "three_of_a_kind", "two_pair", "pair")
BOARD = {  # 653b.4(f)
    "A": (1000, 200, 100, 50, 40, 25, 7, 3, 1),
    "B": (1000, 200, 100, 50, 40, 25, 6, 3, 1),
    "C": (1000, 200, 100, 50, 40, 20, 6, 3, 1),
}
PAIRS_ROWS = ("aa_and_dealer_aa", "ah_ad", "aa", "ak_suited", "aq_aj_suited", "ak", "kk_qq_jj",
              "aq_aj", "pair_tens_or_less")
NA = None
PAIRS = {  # 653b.5(f)
    "A": (NA, NA, 30, 25, 20, 15, 10, 5, 3),
    "B": (NA, NA, 30, 20, 20, 10, 5, 10, 5),
    "C": (NA, 100, 30, 20, 20, 10, 4, 10, 4),
    "D": (NA, 50, 25, 20, 20, 10, 5, 10, 5),
    "E": (NA, NA, 25, 20, 20, 10, 5, 10, 5),
    "F": (1000, NA, 30, 25, 20, 15, 10, 5, 3),
}


def _check(wager, rows, columns):
    assert sorted(paytables.TABLES[wager]) == sorted(columns), wager
    for letter, odds in columns.items():
        table = paytables.get(wager, letter)
        printed = [(rows[i], odds[i], 1) for i in range(len(rows)) if odds[i] is not None]
        assert list(table.lines) == printed, (wager, letter)
        for i in range(len(rows)):
            expected = None if odds[i] is None else (odds[i], 1)
            assert table.odds(rows[i]) == expected, (wager, letter, rows[i])


def test_trips_a_to_e():
    _check("trips", TRIPS_ROWS, TRIPS)


def test_bad_beat_c():
    _check("bad_beat", BAD_BEAT_ROWS, BAD_BEAT)


def test_play_the_board_a_to_c():
    _check("play_the_board", BOARD_ROWS, BOARD)


def test_ultimate_pairs_a_to_f_with_their_na_lines():
    _check("ultimate_pairs", PAIRS_ROWS, PAIRS)


def test_blind_a_and_b():
    a = paytables.get("blind", "A")
    b = paytables.get("blind", "B")
    assert a.odds("royal_flush") == (500, 1) and a.odds("straight_flush") == (50, 1)
    assert a.odds("four_of_a_kind") == (10, 1) and a.odds("full_house") == (3, 1)
    assert a.odds("flush") == (3, 2) and a.odds("straight") == (1, 1)
    assert b.odds("flush") == (3, 2) and b.odds("straight") == (0, 1)  # B pushes below a flush


def test_sections_and_dates():
    for wager, section in (("trips", "653b.2(b)"), ("bad_beat", "653b.3(b)"),
                           ("play_the_board", "653b.4(f)"), ("ultimate_pairs", "653b.5(f)")):
        letter = "E" if wager == "trips" else "C"
        table = paytables.get(wager, letter)
        assert table.section == section
        assert (table.effective, table.expires) == ("2024-03-23", "2026-03-23")
    assert paytables.get("trips", "A").section == "653a.12(c)"
    assert paytables.get("blind", "B").section == "653a.12(b)"


def test_unknown_tables_are_named():
    for wager, letter, needle in (("trips", "F", "'F'"), ("bad_beat", "A", "'A'"),
                                  ("keno", "A", "'keno'")):
        try:
            paytables.get(wager, letter)
        except ValueError as error:
            assert needle in str(error), str(error)
            continue
        raise AssertionError((wager, letter))


def test_letters_in_either_case():
    # Cards are read in either case; so are the letters that name a table.
    for wager, columns in (("trips", TRIPS), ("ultimate_pairs", PAIRS)):
        for letter in columns:
            table = paytables.get(wager, letter.lower())
            assert table.letter == letter, (wager, letter, table.letter)
            assert list(table.lines) == list(paytables.get(wager, letter).lines)
