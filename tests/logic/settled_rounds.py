# The rounds the power-cut proof's table day settles on the board
# (power_cut_script.py), each with its results worked by hand from the
# paytables as the regulation prints them, and the side-wager meters those
# results add up to, counted here and not by the firmware's wagers.py.
#
# Paytables: Trips E (653b.2: royal 50, straight flush 40, quads 30, full
# house 7, flush 6, straight 5, trips 3), Trips A (653a.12(c): 50, 40, 30, 9,
# 7, 4, 3), Bad Beat C (653b.3: straight flush 2,500, quads 500, full house
# 50, flush 30, straight 20, trips 9; rules.md: the strictly losing hand,
# the dealer's too), Play the Board A and C (653b.4(f): the five community
# cards; trips 7 and 6, two pair 3, a pair of tens or better 1), Ultimate
# Pairs F and C (653b.5(f): F's AA 30, KK/QQ/JJ 10; C's ace of hearts with
# ace of diamonds 100, a pair of tens or less 4). A win pays the stake times
# the odds, at most the payout limit (653a.12(h)); a loss costs the stake.

# The paytables set on the table: the first for the first cycles, the second
# (no Bad Beat offered) with a $1,000 payout limit on every wager.
FIRST_TABLES = {"trips": "E", "bad_beat": "C", "play_the_board": "A", "ultimate_pairs": "F"}
SECOND_TABLES = {"trips": "A", "play_the_board": "C", "ultimate_pairs": "C"}
SECOND_LIMIT = 100000

# The settlement record's order of the side wagers (settlement.record).
ORDER = ("trips", "bad_beat", "play_the_board", "ultimate_pairs")


def _seat(number, cards, wagers, folded=False):
    return {"seat": number, "cards": cards, "wagers": wagers, "folded": folded}


# label -> (paytables, payout limit, the round as a dealer terminal sends it,
# {seat: {wager: (paying line or None, net cents, limited)}}).
ROUNDS = {
    # Dealer Qs Ks on 9s Ts Js 9c 9d: a king-high straight flush. Seat 1,
    # four nines: Trips 30 to 1 on $5; losing them to the straight flush,
    # Bad Beat 500 to 1 on $5; the board's three nines, Play the Board 7 to
    # 1 on $5; 9-2, no Ultimate Pairs line. Seat 3, nines full of aces:
    # Trips 7 to 1; AA, Ultimate Pairs 30 to 1 on $10. Seat 5, folded and
    # still in action: three nines, Trips 3 to 1 on $2 and, losing, Bad Beat
    # 9 to 1 on $2.
    "s1": (FIRST_TABLES, None, {
        "round": "s1", "dealer": ["Qs", "Ks"], "board": ["9s", "Ts", "Js", "9c", "9d"],
        "seats": [_seat(1, ["9h", "2c"], {"trips": 500, "bad_beat": 500,
                                          "play_the_board": 500, "ultimate_pairs": 500}),
                  _seat(3, ["Ah", "Ad"], {"trips": 500, "ultimate_pairs": 1000}),
                  _seat(5, ["7c", "2d"], {"trips": 200, "bad_beat": 200}, True)]},
        {1: {"trips": ("four_of_a_kind", 15000, False),
             "bad_beat": ("four_of_a_kind", 250000, False),
             "play_the_board": ("three_of_a_kind", 3500, False),
             "ultimate_pairs": (None, -500, False)},
         3: {"trips": ("full_house", 3500, False), "ultimate_pairs": ("aa", 30000, False)},
         5: {"trips": ("three_of_a_kind", 600, False),
             "bad_beat": ("three_of_a_kind", 1800, False)}}),
    # Dealer Ah Kh on 2c 7d 9h Jc Qs: ace high. Seat 2, a pair of kings:
    # no Trips; KK, Ultimate Pairs 10 to 1 on $3; the board, queen high,
    # no Play the Board. Seat 6, queen high, loses to the dealer's ace
    # high: no Trips, and a losing high card is no Bad Beat.
    "s2": (FIRST_TABLES, None, {
        "round": "s2", "dealer": ["Ah", "Kh"], "board": ["2c", "7d", "9h", "Jc", "Qs"],
        "seats": [_seat(2, ["Kc", "Ks"], {"trips": 300, "play_the_board": 300,
                                          "ultimate_pairs": 300}),
                  _seat(6, ["3d", "4d"], {"trips": 500, "bad_beat": 500})]},
        {2: {"trips": (None, -300, False), "play_the_board": (None, -300, False),
             "ultimate_pairs": ("kk_qq_jj", 3000, False)},
         6: {"trips": (None, -500, False), "bad_beat": (None, -500, False)}}),
    # Dealer 5c 5d on 5h 6h 7h Kc Kd: fives full of kings. Seat 3, the
    # 5-9 straight flush in hearts: Trips 40 to 1 on $1; the dealer's full
    # house loses to it, Bad Beat 50 to 1 on $1; the board's pair of kings,
    # Play the Board 1 to 1 on $1; 9-8, no Ultimate Pairs line. Seat 7,
    # folded, four kings: Trips 30 to 1 on $2; KK, Ultimate Pairs 10 to 1 on $2.
    "s3": (FIRST_TABLES, None, {
        "round": "s3", "dealer": ["5c", "5d"], "board": ["5h", "6h", "7h", "Kc", "Kd"],
        "seats": [_seat(3, ["8h", "9h"], {"trips": 100, "bad_beat": 100,
                                          "play_the_board": 100, "ultimate_pairs": 100}),
                  _seat(7, ["Kh", "Ks"], {"trips": 200, "ultimate_pairs": 200}, True)]},
        {3: {"trips": ("straight_flush", 4000, False), "bad_beat": ("full_house", 5000, False),
             "play_the_board": ("pair", 100, False), "ultimate_pairs": (None, -100, False)},
         7: {"trips": ("four_of_a_kind", 6000, False),
             "ultimate_pairs": ("kk_qq_jj", 2000, False)}}),
    # Dealer 2s 3h on Ac Kc Qc Jc 5d. Seat 1, the royal flush in clubs:
    # Trips A 50 to 1 on $50 is $2,500, paid the $1,000 limit; T-4, no
    # Ultimate Pairs line. Seat 4, three aces: Trips 3 to 1 on $5; the ace
    # of hearts with the ace of diamonds, Ultimate Pairs C 100 to 1 on $5
    # ($500, under the limit); the board, ace high, no Play the Board.
    "s4": (SECOND_TABLES, SECOND_LIMIT, {
        "round": "s4", "dealer": ["2s", "3h"], "board": ["Ac", "Kc", "Qc", "Jc", "5d"],
        "seats": [_seat(1, ["Tc", "4h"], {"trips": 5000, "ultimate_pairs": 1000}),
                  _seat(4, ["Ah", "Ad"], {"trips": 500, "play_the_board": 200,
                                          "ultimate_pairs": 500})]},
        {1: {"trips": ("royal_flush", 100000, True), "ultimate_pairs": (None, -1000, False)},
         4: {"trips": ("three_of_a_kind", 1500, False), "play_the_board": (None, -200, False),
             "ultimate_pairs": ("ah_ad", 50000, False)}}),
    # Dealer Td Th on 2c 2d 2h 9s 4c. Seat 5, nines full of twos: Trips A
    # 9 to 1 on $20; the board's three twos, Play the Board C 6 to 1 on $20;
    # 99, Ultimate Pairs C's pair of tens or less 4 to 1 on $20.
    "s5": (SECOND_TABLES, SECOND_LIMIT, {
        "round": "s5", "dealer": ["Td", "Th"], "board": ["2c", "2d", "2h", "9s", "4c"],
        "seats": [_seat(5, ["9c", "9d"], {"trips": 2000, "play_the_board": 2000,
                                          "ultimate_pairs": 2000})]},
        {5: {"trips": ("full_house", 18000, False),
             "play_the_board": ("three_of_a_kind", 12000, False),
             "ultimate_pairs": ("pair_tens_or_less", 8000, False)}}),
}
LABELS = ("s1", "s2", "s3", "s4", "s5")  # in the order the day settles them


def record_seats(label):
    # A round's seats as its settlement record keeps them: [seat, cards,
    # folded, stakes, nets], stakes and nets in ORDER (0: no such wager).
    _, _, data, results = ROUNDS[label]
    seats = []
    for seat in data["seats"]:
        stakes = [seat["wagers"].get(wager, 0) for wager in ORDER]
        nets = [results[seat["seat"]][wager][1] if wager in seat["wagers"] else 0
                for wager in ORDER]
        seats.append([seat["seat"], "".join(seat["cards"]), seat["folded"], stakes, nets])
    return seats


def meters(labels):
    # The side-wager meters the rounds `labels` add up to, as `meters` shows
    # them: per "wager/letter" the rounds it was played in, the wagers, the
    # amount wagered, the amount paid back (stake and win, for a win), the
    # wins a limit cut, and each paying line's count.
    counted = {}
    for label in labels:
        tables, _, data, results = ROUNDS[label]
        played = set()
        for seat in data["seats"]:
            for wager, stake in seat["wagers"].items():
                line, net, limited = results[seat["seat"]][wager]
                key = wager + "/" + tables[wager]
                row = counted.setdefault(key, {"rounds": 0, "wagers": 0, "wagered": 0,
                                               "paid": 0, "limited": 0, "lines": {}})
                if key not in played:
                    played.add(key)
                    row["rounds"] += 1
                row["wagers"] += 1
                row["wagered"] += stake
                if net > 0:
                    row["paid"] += stake + net
                    row["lines"][line] = row["lines"].get(line, 0) + 1
                row["limited"] += limited
    return counted
