# A settlement record as the log keeps it, settled again by the host's check
# (uthctl mystery verify, the audit): results as worked by hand pass, an
# altered one is named. Dealer Qs Ks on 9s Ts Js 9c 9d; seat 1's 9h 2c make
# four nines: Trips E 30 to 1 on $5 ($150), and Bad Beat C, losing to the
# dealer's straight flush, 500 to 1 on $5 ($2,500), limited here to $1,000.
from mystery import chain
from uthctl.analysis import log_verify, settled

# Wagers in the order trips, bad_beat, play_the_board, ultimate_pairs.
RECORD = {"ev": "settled", "locked_round": 4, "label": "r-1", "cards": "QsKs9sTsJs9c9d",
          "paytables": ["E", "C", None, None], "rules": ["two_way", "action"],
          "limits": [None, 100000, None, None],
          "seats": [[1, "9h2c", False, [500, 500, 0, 0], [15000, 100000, 0, 0]]]}


def _log(record):
    return [chain.link(record, 1, chain.GENESIS)]


def test_a_record_as_worked_by_hand_settles_as_recorded():
    assert settled.problem(RECORD) is None
    result = log_verify.verify_log(_log(RECORD))
    assert result["ok"] and result["settled"] == 1, result
    assert "rounds settled on the board: 1" in log_verify.format_verify(result)


def test_an_altered_result_is_named():
    altered = dict(RECORD, seats=[[1, "9h2c", False, [500, 500, 0, 0], [15000, 250000, 0, 0]]])
    result = log_verify.verify_log(_log(altered))  # hashed after the change: the chain holds
    assert not result["ok"]
    assert result["problem"].startswith("record 1: seat 1's bad_beat is recorded as 250000; its "
                                        "cards settle as {'category': 'four_of_a_kind', "
                                        "'odds': 500, 'net': 100000, 'limited': True"), result


def test_a_record_whose_cards_do_not_settle_is_named():
    bad = dict(RECORD, cards="QsKs9sTsJs9c9h")  # 9h twice
    assert "not a settlement that settles: seat 1: duplicate card 9h" in settled.problem(
        dict(bad, seq=1))
