# The audit's accounts of the wager meters (13:69E-1.39A(b)(1)): the count of
# qualifying wagers and the amount they wagered, which every round record
# states after it, against the round's contributions and the board's meters.
# The expected figures are counted here from the records' contributions
# ([seat, wager in cents, amount]), one per qualifying wager; the meters come
# from the firmware's own engine (mystery_sim).
from test_audit_checks import audit_of, relinked, simulated, with_head

from uthctl.analysis import ledger

CENT = 10_000  # micro-dollars


def _counted(records):
    # (qualifying wagers, wagered in micro-dollars) over the round records.
    rows = [row for r in records if r["ev"] == "round" for row in r["contributions"]]
    return len(rows), sum(cents for _, cents, _ in rows) * CENT


def test_the_meters_are_the_wagers_the_rounds_counted():
    records, meters = simulated(rounds=400)
    count, wagered = _counted(records)
    assert count > 400 and (meters["qualifying_wagers"], meters["wagered"]) == (count, wagered)
    result = audit_of(records, meters)
    assert result["ok"], result["failures"]
    mine = result["accounts"]["recomputed"]
    assert (mine["qualifying_wagers"], mine["wagered"]) == (count, wagered)
    assert result["accounts"]["compared"].endswith(
        "; qualifying wagers and wagered from record 1")


def test_a_count_changed_on_the_meters_is_caught():
    records, meters = simulated(rounds=200)
    for name, change in (("qualifying_wagers", 1), ("qualifying_wagers", -1),
                         ("wagered", CENT), ("wagered", -100 * CENT)):
        wrong = dict(meters, **{name: meters[name] + change})
        result = audit_of(records, wrong)
        assert not result["ok"]
        assert ["accounts: %s: the board's meters say %d, the log's rounds add up to %d"
                % (name, wrong[name], meters[name])] == result["failures"], result["failures"]


def test_a_round_whose_stated_count_was_rewritten_is_named():
    # A forger who rewrote one round's totals and every hash after it: the
    # chain holds, the accounts do not.
    records, meters = simulated(rounds=200)
    rounds = [r for r in records if r["ev"] == "round"]
    target = rounds[len(rounds) // 2]
    forged = [dict(r) for r in records]
    at = records.index(target)
    forged[at]["qualifying_wagers"] -= 1
    forged = relinked(forged)
    result = audit_of(forged, with_head(meters, forged))
    assert not result["ok"]
    assert any(f.startswith("accounts: record %d: states %d qualifying wagers"
                            % (target["seq"], target["qualifying_wagers"] - 1))
               for f in result["failures"]), result["failures"]


def test_a_round_that_drops_them_after_rounds_that_stated_them_is_named():
    records, meters = simulated(rounds=100)
    target = [r for r in records if r["ev"] == "round"][-3]
    forged = [dict(r) for r in records]
    at = records.index(target)
    del forged[at]["qualifying_wagers"], forged[at]["wagered"]
    walked = ledger.Ledger(True, chart=False).walk(forged)
    assert walked.problems == ["record %d: a round without the qualifying wagers and wagered, "
                               "after rounds that stated them" % target["seq"]]


def test_a_log_whose_oldest_rounds_are_gone_checks_them_from_the_first_kept():
    records, meters = simulated(rounds=300)
    kept = records[len(records) // 2:]
    first_round = next(r for r in kept if r["ev"] == "round")
    walked = ledger.Ledger(False, chart=False).walk(kept)
    compared, problems = ledger.compare(walked, meters)
    assert walked.problems == [] and problems == []
    assert compared.endswith("; qualifying wagers and wagered from record %d"
                             % first_round["seq"])
    _, problems = ledger.compare(walked, dict(meters, wagered=meters["wagered"] + CENT))
    assert len(problems) == 1 and problems[0].startswith("wagered: ")


def test_a_board_updated_from_a_firmware_without_them_counts_from_its_first_round_on_it():
    # The rounds before the update state nothing; the board's meters count
    # the rounds after it, which the first of them begins.
    records, meters = simulated(rounds=300)
    rounds = [r for r in records if r["ev"] == "round"]
    update = rounds[len(rounds) // 2]
    older = [r for r in rounds if r["seq"] < update["seq"]]
    base = _counted(older)
    log = []
    for record in records:
        record = dict(record)
        if record["ev"] == "round":
            if record["seq"] < update["seq"]:
                del record["qualifying_wagers"], record["wagered"]
            else:
                record["qualifying_wagers"] -= base[0]
                record["wagered"] -= base[1]
        log.append(record)
    log = relinked(log)
    after = (meters["qualifying_wagers"] - base[0], meters["wagered"] - base[1])
    assert after == _counted([r for r in rounds if r["seq"] >= update["seq"]])
    board = with_head(dict(meters, qualifying_wagers=after[0], wagered=after[1]), log)
    result = audit_of(log, board)
    assert result["ok"], result["failures"]
    assert result["accounts"]["compared"].endswith(
        "; qualifying wagers and wagered from record %d" % update["seq"])
    result = audit_of(log, dict(board, qualifying_wagers=after[0] + 1))
    assert not result["ok"]
