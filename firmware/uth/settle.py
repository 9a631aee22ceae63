# Side-wager settlement of a round: Trips, Bad Beat, Play the Board and
# Ultimate Pairs (58 Pa. Code 653b.2-653b.5, 653a.12(c)), decided as
# rules.md says. A round is checked whole before anything is settled.
from .categories import CATEGORY_SHIFT, NAMES, PAIR, primary_ranks
from .evaluator import score
from .pairs import pairs_lines
from .round import parse_round

_TENS_AND_UP = 0x1F00  # rank mask of T, J, Q, K, A


def _result(category, odds, stake, limit=None):
    # A win pays stake times odds, at most the payout limit (653a.12(h): the
    # most one wager wins in a round; the stake itself is returned beside
    # it); a loss costs the stake. A limited win says so, with what the odds
    # alone would have paid.
    if odds is None:
        return {"category": category, "odds": None, "net": -stake}
    to, per = odds
    net = stake * to // per
    if limit is not None and net > limit:
        return {"category": category, "odds": to, "net": limit, "limited": True,
                "unlimited": net}
    return {"category": category, "odds": to, "net": net}


def _trips(table, player_score, stake, limit):
    category = NAMES[player_score >> CATEGORY_SHIFT]
    return _result(category, table.odds(category), stake, limit)


def bad_beat_losing_score(player_score, dealer_score, mode):
    # The hand Bad Beat looks at: the strictly losing one (two_way), or the
    # player's only (player_loses); None for a tie or a losing dealer there.
    if player_score < dealer_score:
        return player_score
    if dealer_score < player_score and mode == "two_way":
        return dealer_score
    return None


def _bad_beat(table, settings, player_score, dealer_score, folded, stake, limit):
    if folded and settings["bad_beat_on_fold"] == "lose":
        return _result(None, None, stake)
    losing = bad_beat_losing_score(player_score, dealer_score, settings["bad_beat_mode"])
    if losing is None:
        return _result(None, None, stake)
    category = NAMES[losing >> CATEGORY_SHIFT]
    return _result(category, table.odds(category), stake, limit)


def _play_the_board(table, board_score, stake, limit):
    category = NAMES[board_score >> CATEGORY_SHIFT]
    if board_score >> CATEGORY_SHIFT == PAIR and not primary_ranks(board_score) & _TENS_AND_UP:
        return _result(category, None, stake)  # a pair below tens does not pay
    return _result(category, table.odds(category), stake, limit)


def _ultimate_pairs(table, cards, dealer, stake, limit):
    # The first line that matches and that this paytable has (N/A lines do not).
    for line in pairs_lines(cards, dealer):
        odds = table.odds(line)
        if odds is not None:
            return _result(line, odds, stake, limit)
    return _result(None, None, stake)


def _settle_seat(round_, seat, dealer_score, board_score):
    tables = round_.tables
    player_score = score(seat.hand, 7)
    results = {}
    for wager, stake in seat.wagers:
        table = tables[wager]
        limit = round_.limits.get(wager)
        if wager == "trips":
            results[wager] = _trips(table, player_score, stake, limit)
        elif wager == "bad_beat":
            results[wager] = _bad_beat(table, round_.settings, player_score, dealer_score,
                                       seat.folded, stake, limit)
        elif wager == "play_the_board":
            results[wager] = _play_the_board(table, board_score, stake, limit)
        else:
            results[wager] = _ultimate_pairs(table, seat.cards, round_.dealer, stake, limit)
    return {"seat": seat.number, "results": results}


def settle_parsed(round_):
    dealer_score = score(round_.dealer_hand, 7)
    board_score = score(round_.board, 5)
    seats = [_settle_seat(round_, seat, dealer_score, board_score) for seat in round_.seats]
    if round_.label is None:
        return {"seats": seats}
    return {"round": round_.label, "seats": seats}


def settle(round_data):
    # round_data: the round as JSON data (docs/uthctl.md, "A round"); raises ValueError.
    return settle_parsed(parse_round(round_data))
