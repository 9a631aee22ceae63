# The database's head against a board's, each way they can stand
# (floor/audit/head.py): the expected verdicts follow from the records'
# chain as the firmware's chain.py makes it, never from the code compared.
from chains import records

from mystery import chain
from uthctl.floor.audit.head import BEHIND, CONFIRMED, FAILED, UNCONFIRMED, compare

NOW = 1_800_000_000


def timed(count, made):
    # A log of `count` records, each made at `made` by the board's clock.
    out, prev = [], chain.GENESIS
    for seq in range(1, count + 1):
        out.append(chain.link({"ev": "setting", "name": "wager_cents", "was": None,
                               "value": seq, "time": made}, seq, prev))
        prev = out[-1]["hash"]
    return out


def head(log):
    return log[-1]["seq"], log[-1]["hash"]


def test_the_same_head_is_confirmed():
    log = records(5)
    assert compare(log, head(log), [], NOW)["state"] == CONFIRMED


def test_an_empty_database_and_a_board_with_no_log_agree():
    assert compare([], (0, chain.GENESIS), [], NOW)["state"] == CONFIRMED


def test_the_same_record_number_with_another_hash_fails():
    found = compare(records(5), head(records(5, tag="B2")), [], NOW)
    assert found["state"] == FAILED and "is not the database's record 5" in found["text"]


def test_records_past_the_boards_head_fail():
    found = compare(records(5), head(records(3)), [], NOW)
    assert found["state"] == FAILED and "records 4-5 past the board's head" in found["text"]


def test_a_database_behind_by_fresh_records_is_behind():
    board = timed(8, NOW - 30)
    found = compare(board[:6], head(board), board[6:], NOW)
    assert found["state"] == BEHIND and found["text"].startswith("behind by 2")


def test_a_database_lacking_old_records_fails():
    board = timed(8, NOW - 3600)
    found = compare(board[:6], head(board), board[6:], NOW)
    assert found["state"] == FAILED
    assert "lacks records 7-8, which the board holds, the first made 3600 s ago" in found["text"]


def test_missing_records_without_a_time_fail():
    board = records(8)
    assert compare(board[:6], head(board), board[6:], NOW)["state"] == FAILED


def test_a_database_head_off_the_boards_chain_fails():
    board = timed(8, NOW)
    ours = records(6, tag="B2")  # the same numbers, another chain
    found = compare(ours, head(board), board[6:], NOW)
    assert found["state"] == FAILED and "is not on the board's chain" in found["text"]


def test_records_after_that_do_not_reach_the_boards_head_fail():
    board = timed(8, NOW)
    found = compare(board[:6], (9, board[-1]["hash"]), board[6:], NOW)
    assert found["state"] == FAILED and "end elsewhere" in found["text"]


def test_a_board_ahead_whose_records_did_not_come_is_unconfirmed():
    board = timed(8, NOW)
    assert compare(board[:6], head(board), [], NOW)["state"] == UNCONFIRMED
    assert compare(board[:6], head(board), board[7:], NOW)["state"] == UNCONFIRMED


def test_records_the_board_no_longer_keeps_from_the_start_old_fail():
    board = timed(8, NOW - 3600)
    found = compare(board[:2], head(board), board[4:], NOW)  # the board keeps 5-8
    assert found["state"] == FAILED
    assert found["text"].startswith("the database lacks records 3-8 (the board keeps them "
                                    "from record 5 on), record 5 made 3600 s ago")


def test_records_the_board_no_longer_keeps_from_the_start_fresh_are_unconfirmed():
    board = timed(8, NOW - 5)
    assert compare(board[:2], head(board), board[4:], NOW)["state"] == UNCONFIRMED


def test_records_that_do_not_chain_to_the_boards_head_prove_nothing():
    board = timed(8, NOW - 3600)
    forged = [dict(r, value=0) for r in board[4:]]  # hashes no longer their own
    assert compare(board[:2], head(board), forged, NOW)["state"] == UNCONFIRMED
