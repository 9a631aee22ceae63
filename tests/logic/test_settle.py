# Side-wager settlement, each case worked by hand from the regulation's odds
# and the decisions of rules.md: a win nets stake x odds, a loss the stake.
from uth.settle import settle

ALL_FOUR = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}


def _round(dealer, board, seats, tables=None, settings=None):
    data = {"paytables": tables or ALL_FOUR, "dealer": dealer.split(), "board": board.split(),
            "seats": []}
    for number, (cards, folded, wagers) in enumerate(seats, 1):
        data["seats"].append({"seat": number, "cards": cards.split(), "folded": folded,
                              "wagers": wagers})
    if settings is not None:
        data["settings"] = settings
    return data


def _one(dealer, board, cards, wager, stake=500, tables=None, settings=None, folded=False):
    result = settle(_round(dealer, board, [(cards, folded, {wager: stake})], tables, settings))
    return result["seats"][0]["results"][wager]


def _expect(result, category, odds, net):
    assert (result["category"], result["odds"], result["net"]) == (category, odds, net), result


def test_the_issue_example():
    # Player AA against dealer AA: no Trips, a tie for Bad Beat, a K-high board,
    # and under Ultimate Pairs F both hold aces: 1,000 to 1 on $5.
    data = _round("Ah Ad", "2c 7d 9h Js Kc", [("As Ac", False, {
        "trips": 500, "bad_beat": 500, "play_the_board": 500, "ultimate_pairs": 500})])
    results = settle(data)["seats"][0]["results"]
    _expect(results["trips"], "pair", None, -500)
    _expect(results["bad_beat"], None, None, -500)
    _expect(results["play_the_board"], "high_card", None, -500)
    _expect(results["ultimate_pairs"], "aa_and_dealer_aa", 1000, 500000)


def test_trips_pays_the_highest_category_by_table():
    flush = ("Kd Qd", "2h 7h 9h Js Kc", "Ah 4h")
    _expect(_one(*flush, "trips"), "flush", 6, 3000)  # E: 6 to 1
    _expect(_one(*flush, "trips", tables={"trips": "A"}), "flush", 7, 3500)
    _expect(_one("Kd Qd", "2h 2c 9h Js Kc", "2s 3d", "trips"), "three_of_a_kind", 3, 1500)
    _expect(_one("Kd Qd", "Th Jh Qh Kh 2c", "Ah 3d", "trips", 100), "royal_flush", 50, 5000)
    _expect(_one("Kd Qd", "2h 2c 9h Js Kc", "3s 3d", "trips"), "two_pair", None, -500)


def test_trips_stays_in_action_after_a_fold():
    _expect(_one("Kd Qd", "2h 2c 9h Js Kc", "2s 2d", "trips", folded=True),
            "four_of_a_kind", 30, 15000)


def test_bad_beat_pays_on_the_losing_hand():
    # Player's quad nines lose to the dealer's king-high straight flush: 500 to 1.
    _expect(_one("Qs Ks", "9s Ts Js 9c 9d", "9h 2c", "bad_beat"), "four_of_a_kind", 500, 250000)
    # Dealer's aces full lose to the player's quads: two-way pays 50 to 1 ...
    dealer_loses = ("Ah Ad", "As 7c 7d Kh 2s", "7h 7s", "bad_beat")
    _expect(_one(*dealer_loses), "full_house", 50, 25000)
    # ... and the player_loses mode pays nothing.
    _expect(_one(*dealer_loses, settings={"bad_beat_mode": "player_loses"}), None, None, -500)


def test_bad_beat_loses_on_a_tie_and_below_trips():
    _expect(_one("2c 3c", "Ts Jd Qc Kh As", "4d 5d", "bad_beat"), None, None, -500)  # board plays
    _expect(_one("Ac Kc", "2s 7d 9c Jh Qh", "3d 4d", "bad_beat"), "high_card", None, -500)


def test_bad_beat_on_fold_setting():
    hand = ("Qs Ks", "9s Ts Js 9c 9d", "9h 2c", "bad_beat")
    _expect(_one(*hand, folded=True), "four_of_a_kind", 500, 250000)  # default: action
    _expect(_one(*hand, folded=True, settings={"bad_beat_on_fold": "lose"}), None, None, -500)


def test_play_the_board_needs_tens_or_better():
    board = {"play_the_board": "C"}
    _expect(_one("2c 3d", "Th Td 4c 7s 8h", "Ac Kd", "play_the_board", tables=board),
            "pair", 1, 500)
    _expect(_one("2c 3d", "9h 9d 4c 7s Ah", "Ac Kd", "play_the_board", tables=board),
            "pair", None, -500)
    _expect(_one("2c 3d", "9h 9d 4c 4s Ah", "Ac Kd", "play_the_board", tables=board),
            "two_pair", 3, 1500)
    straight = ("2c 3d", "9h Td Jc Qs Kh", "Ac Kd", "play_the_board")
    _expect(_one(*straight, tables={"play_the_board": "A"}), "straight", 25, 12500)
    _expect(_one(*straight, tables=board), "straight", 20, 10000)
    # The board alone counts: the player's aces do not make it a pair.
    _expect(_one("2c 3d", "As 7d 9h Js Kc", "Ac Ad", "play_the_board"), "high_card", None, -500)


def test_play_the_board_and_ultimate_pairs_stay_in_action_after_a_fold():
    # 653b.4(c) and 653b.5(c): a folded player's wagers remain until settled.
    _expect(_one("2c 3d", "Th Td 4c 7s 8h", "Ac Kd", "play_the_board", folded=True), "pair",
            1, 500)
    _expect(_one("2c 3d", "Th 9d 4c 7s 8h", "Ks Kd", "ultimate_pairs", folded=True),
            "kk_qq_jj", 10, 5000)


def test_paytable_f_needs_both_dealer_cards_to_be_aces():
    # One dealer ace is not "dealer ace/ace": the player's aces pay 30 to 1.
    _expect(_one("As 2c", "3c 7d 9h Js Kd", "Ah Ad", "ultimate_pairs", 100), "aa", 30, 3000)
    _expect(_one("2c As", "3c 7d 9h Js Kd", "Ah Ad", "ultimate_pairs", 100), "aa", 30, 3000)


def test_ultimate_pairs_falls_past_na_lines():
    red_aces = ("Kc Qc", "2c 7d 9h Js Kd", "Ah Ad", "ultimate_pairs", 100)
    _expect(_one(*red_aces, tables={"ultimate_pairs": "A"}), "aa", 30, 3000)
    _expect(_one(*red_aces, tables={"ultimate_pairs": "C"}), "ah_ad", 100, 10000)
    _expect(_one(*red_aces, tables={"ultimate_pairs": "D"}), "ah_ad", 50, 5000)
    _expect(_one(*red_aces, tables={"ultimate_pairs": "F"}), "aa", 30, 3000)
    # Red aces against the dealer's aces under F: the first line wins.
    _expect(_one("As Ac", "2c 7d 9h Js Kd", "Ah Ad", "ultimate_pairs", 100), "aa_and_dealer_aa",
            1000, 100000)


def test_ultimate_pairs_pays_as_printed_even_when_offsuit_beats_kings():
    b = {"ultimate_pairs": "B"}
    _expect(_one("2c 3d", "4c 7d 9h 5s 6s", "As Qd", "ultimate_pairs", tables=b), "aq_aj", 10,
            5000)
    _expect(_one("2c 3d", "4c 7d 9h 5s 6s", "Ks Kd", "ultimate_pairs", tables=b), "kk_qq_jj", 5,
            2500)
    _expect(_one("2c 3d", "4c 7d 9h 5s 6s", "Js Jd", "ultimate_pairs", tables=b), "kk_qq_jj", 5,
            2500)
    _expect(_one("2c 3d", "4c 7d 9h 5s 6s", "Ts Td", "ultimate_pairs", tables=b),
            "pair_tens_or_less", 5, 2500)
    _expect(_one("2c 3d", "4c 7d 9h 5s 6s", "Ks Qs", "ultimate_pairs", tables=b), None, None,
            -500)


def test_several_seats_and_zero_wagers():
    data = _round("2c 3d", "4c 7d 9h 5s Ks", [
        ("Kh Kd", False, {"trips": 200, "ultimate_pairs": 0}),
        ("Ah Jh", True, {"ultimate_pairs": 300}),
    ])
    seats = settle(data)["seats"]
    assert [seat["seat"] for seat in seats] == [1, 2]
    assert list(seats[0]["results"]) == ["trips"]  # a zero wager was not made
    _expect(seats[0]["results"]["trips"], "three_of_a_kind", 3, 600)
    _expect(seats[1]["results"]["ultimate_pairs"], "aq_aj_suited", 20, 6000)


def _refused(data, needle):
    try:
        settle(data)
    except ValueError as error:
        assert needle in str(error), "%r lacks %r" % (str(error), needle)
        return
    raise AssertionError("round was settled: " + needle)


def _good():
    return _round("Ah Ad", "2c 7d 9h Js Kc", [("As Ac", False, {"trips": 500}),
                                              ("Qh Qd", False, {"trips": 500})])


def test_bad_rounds_are_refused_whole():
    data = _good()
    data["seats"][1]["cards"] = ["Qh", "Ah"]
    _refused(data, "seat 2: duplicate card Ah (also dealer)")
    data = _good()
    data["board"] = ["2c", "7d", "9h", "Js"]
    _refused(data, "board needs 5 cards")
    data = _good()
    data["seats"][0]["cards"] = ["As", "Xx"]
    _refused(data, "seat 1: unknown card 'Xx'")
    data = _good()
    data["paytables"] = {"trips": "G"}
    _refused(data, "no paytable 'G' for trips")
    data = _good()
    data["paytables"] = {"keno": "A"}
    _refused(data, "unknown wager 'keno'")
    # JSON of the wrong type is a refused round, never a TypeError from a look-up.
    data = _good()
    data["paytables"] = {"trips": ["E"]}
    _refused(data, "no paytable ['E'] for trips")
    data = _good()
    data["seats"][0]["cards"] = ["As", 7]
    _refused(data, "seat 1: unknown card 7")
    data = _good()
    data["dealer"] = ["10h", "1"]
    _refused(data, "dealer: unknown card '1'")


def test_each_seat_is_named_in_its_refusal():
    # Seats are named by number: a card held by an earlier seat, a short
    # hand, wagers that are not an object or name an unknown wager.
    data = _good()
    data["seats"][1]["cards"] = ["Qh", "Ac"]
    _refused(data, "seat 2: duplicate card Ac (also seat 1)")
    data = _good()
    data["seats"][1]["cards"] = ["Qh"]
    _refused(data, "seat 2 needs 2 cards")
    data = _good()
    data["seats"][0]["wagers"] = [500]
    _refused(data, "seat 1 wagers must be an object")
    data = _good()
    data["seats"][1]["wagers"] = {"keno": 5}
    _refused(data, "unknown key 'keno' in seat 2 wagers")
    data = _good()
    data["seats"][1]["sat"] = 1
    _refused(data, "unknown key 'sat' in a seat")


def test_bad_wagers_are_refused_whole():
    for stake, needle in ((-5, "-5"), (2.5, "2.5"), (True, "True"), ("500", "'500'")):
        data = _good()
        data["seats"][1]["wagers"] = {"trips": stake}
        _refused(data, "seat 2: trips wager must be whole cents")
        _refused(data, needle)
    data = _good()
    data["paytables"] = {"trips": "E"}
    data["seats"][0]["wagers"] = {"bad_beat": 100}
    _refused(data, "seat 1 wagers on bad_beat but the round names no bad_beat paytable")


def test_bad_seats_and_settings_are_refused():
    data = _good()
    data["seats"][1]["seat"] = 1
    _refused(data, "seat 1 is listed twice")
    data = _good()
    data["seats"][1]["seat"] = 9
    _refused(data, "seat number must be 1 to 7")
    data = _good()
    data["settings"] = {"bad_beat_mode": "one_way"}
    _refused(data, "bad_beat_mode must be one of two_way, player_loses")
    data = _good()
    data["extra"] = 1
    _refused(data, "unknown key 'extra' in the round")
    data = _good()
    data["seats"] = []
    _refused(data, "seats must be a non-empty list")


# The payout limitation of 653a.12(h): the most one wager wins in a round.
# Figures by hand from the paytables' odds.
def _limited(result, category, odds, net, unlimited):
    assert (result["category"], result["odds"], result["net"], result.get("limited"),
            result.get("unlimited")) == (category, odds, net, True, unlimited), result


def test_a_payout_limit_caps_a_win_and_says_so():
    # Ultimate Pairs F, player AA against dealer AA: 1,000 to 1 on $5 is $5,000;
    # a $1,000 limit pays $1,000 and says the odds paid $5,000.
    data = _round("Ah Ad", "2c 7d 9h Js Kc", [("As Ac", False, {"ultimate_pairs": 500,
                                                                   "trips": 500})])
    data["max_payout_cents"] = 100000
    results = settle(data)["seats"][0]["results"]
    _limited(results["ultimate_pairs"], "aa_and_dealer_aa", 1000, 100000, 500000)
    _expect(results["trips"], "pair", None, -500)  # a loss costs the stake, limit or not
    assert "limited" not in results["trips"]


def test_a_win_at_or_under_the_limit_is_not_limited():
    # Trips E flush, 6 to 1 on $5 = $30: a $30 limit leaves it whole.
    flush = ("Kd Qd", "2h 7h 9h Js Kc", [("Ah 4h", False, {"trips": 500})])
    data = _round(*flush)
    data["max_payout_cents"] = {"trips": 3000}
    result = settle(data)["seats"][0]["results"]["trips"]
    assert result == {"category": "flush", "odds": 6, "net": 3000}, result
    data["max_payout_cents"] = {"trips": 2999}
    _limited(settle(data)["seats"][0]["results"]["trips"], "flush", 6, 2999, 3000)


def test_a_limit_per_wager_leaves_the_others_alone():
    # Bad Beat C: quad nines lose to a straight flush, 500 to 1 on $5 = $2,500;
    # Play the Board A: the board 9s Ts Js 9c 9d is three of a kind, 7 to 1 on
    # $5 = $35. Only Bad Beat is limited, to $500.
    data = _round("Qs Ks", "9s Ts Js 9c 9d", [("9h 2c", False, {"bad_beat": 500,
                                                                 "play_the_board": 500})])
    data["max_payout_cents"] = {"bad_beat": 50000, "play_the_board": None}
    results = settle(data)["seats"][0]["results"]
    _limited(results["bad_beat"], "four_of_a_kind", 500, 50000, 250000)
    _expect(results["play_the_board"], "three_of_a_kind", 7, 3500)


def test_a_bad_payout_limit_refuses_the_round():
    data = _round("Ah Ad", "2c 7d 9h Js Kc", [("As Ac", False, {"trips": 500})])
    for bad, says in ((0, "from 1 to"), (-5, "from 1 to"), (12.5, "whole cents"),
                      ("100", "whole cents"), ({"blind": 100}, "unknown wager"),
                      ({"trips": 0}, "from 1 to"), (10 ** 9 + 1, "from 1 to 1000000000"),
                      (10 ** 200, "not 100000000000000000000...")):
        data["max_payout_cents"] = bad
        try:
            settle(data)
        except ValueError as error:
            assert says in str(error), (bad, str(error))
        else:
            raise AssertionError("%r was taken" % (bad,))
