# uthctl audit's checks on logs made without a board: the firmware's own
# engine run in memory (mystery_sim.simulate writes its events as log records
# linked as the store links them), then altered here the way a byte flipped on
# a disk or a forger would alter them. What must be caught is decided here,
# not by the code under test: the record we changed must be the one named.
import copy
import io
import json
import random

from mystery import chain
from mystery.meter import Meter
from mystery.record import public_meters
from uthctl.analysis import audit_report, mystery_sim
from uthctl.analysis.table_audit import audit
from uthctl.commands.audit import read_logs
from uthctl.links import logexport

STATUS = {"ok": True, "state": "betting", "payment": "table_inventory", "fault": None}


def simulated(name="B1", rounds=3000, seed=7):
    # (records, meters as the board's `meters` reply gives them).
    stream = io.StringIO()
    sim = mystery_sim.simulate(name, rounds, 6, seed, log_stream=stream)
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    meters = dict(public_meters(sim.meter), log_seq=records[-1]["seq"],
                  log_hash=records[-1]["hash"], log_dropped=0)
    return records, meters


def audit_of(records, meters, failures=()):
    return audit(STATUS, meters, records, list(failures), "test")


def relinked(records):
    # The chain made again from the first record on: what a forger who
    # rewrote a record and every hash after it would leave.
    out, prev = [], records[0]["prev"]
    for record in records:
        fields = {k: v for k, v in record.items() if k not in ("seq", "prev", "hash")}
        out.append(chain.link(fields, record["seq"], prev))
        prev = out[-1]["hash"]
    return out


def with_head(meters, records):
    return dict(meters, log_seq=records[-1]["seq"], log_hash=records[-1]["hash"])


def test_a_long_simulated_run_verifies():
    records, meters = simulated()
    assert meters["hits"] >= 2  # B1 over 3,000 six-seat rounds: several cycles
    result = audit_of(records, meters)
    assert result["ok"], result["failures"]
    # The totals recomputed from the log are the engine's meters, and the
    # identity holds on them.
    mine = result["accounts"]["recomputed"]
    assert {k: mine[k] for k in ("seeded", "contributed", "paid", "meter", "hits")} == {
        k: meters[k] for k in ("seeded", "contributed", "paid", "meter", "hits")}
    assert meters["seeded"] + meters["contributed"] == meters["paid"] + meters["meter"]
    hits_logged = [r for r in records if r["ev"] == "hit"]
    assert result["log"]["verify"]["hits"] == len(hits_logged) == meters["hits"] + (
        meters["pending"] is not None)
    assert "AUDIT PASSED" in audit_report.text(result)


def _flip(line, index):
    # One byte changed: a digit to another digit, so the line is still JSON.
    digit = line[index]
    return line[:index] + ("1" if digit != "1" else "2") + line[index + 1:]


def test_one_byte_changed_in_an_exported_file_names_the_record(tmp_path):
    records, meters = simulated(rounds=400)
    lines = [json.dumps(record) for record in records]
    target = next(r for r in records[100:] if r["ev"] == "round")
    number = records.index(target)
    at = lines[number].index('"meter": ') + len('"meter": ') + 2
    lines[number] = _flip(lines[number], at)
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n")
    read, failures = read_logs([str(path)])
    assert failures == []
    result = audit_of(read, meters)
    assert not result["ok"]
    assert "log: record %d was altered" % target["seq"] in result["failures"]
    # The changed meter is named by the accounts too.
    assert any(f.startswith("accounts: record %d: the meter is" % target["seq"])
               for f in result["failures"])
    assert "record %d was altered" % target["seq"] in audit_report.text(result)


def test_a_byte_that_breaks_the_json_names_the_line_and_the_record_before(tmp_path):
    records, meters = simulated(rounds=50)
    lines = [json.dumps(record) for record in records]
    lines[20] = lines[20].replace("{", "[", 1)
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n")
    read, failures = read_logs([str(path)])
    assert len(failures) == 1
    assert "log line 21" in failures[0] and "after record %d" % records[19]["seq"] in failures[0]
    result = audit_of(read, meters, failures)
    assert not result["ok"] and result["failures"][0] == failures[0]


def test_a_rehashed_forgery_is_caught_by_the_accounts():
    # A contribution raised by a cent and the chain relinked after it (the
    # meters' head forged to match): the chain verifies, the money does not.
    records, meters = simulated(rounds=300)
    forged = copy.deepcopy(records)
    target = next(r for r in forged[40:] if r["ev"] == "round" and r["contributions"])
    target["contributions"][0][2] += 10_000
    forged = relinked(forged)
    result = audit_of(forged, with_head(meters, forged))
    assert result["log"]["verify"]["ok"]  # the chain alone cannot tell
    assert not result["ok"]
    seat, wager = target["contributions"][0][:2]
    assert any(f.startswith("accounts: record %d: seat %d contributed" % (target["seq"], seat))
               and "%d cent wager" % wager in f for f in result["failures"])


def test_an_award_not_earned_by_the_contributions_is_caught():
    records, meters = simulated(rounds=3000)
    forged = copy.deepcopy(records)
    hit = next(r for r in forged if r["ev"] == "hit")
    hit["award"] += 10_000  # a cent more than 100% of the meter
    forged = relinked(forged)
    result = audit_of(forged, with_head(meters, forged))
    assert any(f.startswith("accounts: record %d:" % hit["seq"]) and "award" in f
               for f in result["failures"])


def test_a_log_cut_at_its_front_while_the_board_keeps_it_fails():
    # The first 13 records deleted from an export; the board has dropped
    # none, so it still holds them: the audit names them missing.
    records, meters = simulated(rounds=400)
    cut = records[13:]
    result = audit_of(cut, meters)
    assert not result["ok"]
    assert result["failures"] == [
        "log: the log starts at record 14, but the board still keeps the records from 1 (it "
        "has dropped 0): records 1-13 are missing from the log's front"]
    text = audit_report.text(result)
    # The report does not also say the board dropped them.
    assert "dropped by the board's bounded log" not in text
    assert "records 1-13 are not in the log, and the board has dropped none" in text
    # Cut from a board that had dropped 5: records 6-13 are missing.
    result = audit_of(cut, dict(meters, log_dropped=5))
    assert "records 6-13 are missing from the log's front" in result["failures"][0]


def test_a_part_of_a_log_is_audited_when_asked_and_says_so_first():
    records, meters = simulated(rounds=400)
    cut = records[13:]
    result = audit(STATUS, meters, cut, [], "test", from_seq=14)
    assert result["ok"], result["failures"]
    text = audit_report.text(result)
    assert text.splitlines()[0].startswith(
        "Mystery audit of part of the log, from record 14 (--from), of test")
    assert "a part of the log: records 1-13 are not in it (the board has dropped 0)" in text
    # --from names where the part must start: a log starting elsewhere fails.
    result = audit(STATUS, meters, records[14:], [], "test", from_seq=14)
    assert result["failures"] == ["log: the log starts at record 15, not at record 14 (--from)"]


def test_a_log_whose_oldest_records_were_dropped_says_so():
    records, meters = simulated(rounds=2000)
    kept = records[150:]
    meters = dict(meters, log_dropped=150)
    result = audit_of(kept, meters)
    assert result["ok"], result["failures"]
    assert result["log"]["dropped"] == 150 and not result["log"]["from_genesis"]
    text = audit_report.text(result)
    assert "records 1-150 were dropped by the board's bounded log" in text
    assert "the meter, from the first record that states it" in text
    # The meter carried from the records kept must still reach the board's.
    shifted = dict(meters, meter=meters["meter"] + 10_000, seeded=meters["seeded"] + 10_000)
    result = audit_of(kept, shifted)
    assert not result["ok"]
    assert any(f.startswith("accounts: meter: the board's meters say %d" % shifted["meter"])
               for f in result["failures"])


def test_a_log_that_stops_short_of_the_head_fails():
    records, meters = simulated(rounds=100)
    result = audit_of(records[:-3], meters)
    assert not result["ok"]
    assert any("the meter's head is record %d" % meters["log_seq"] in f
               for f in result["failures"])


def test_broken_identity_on_the_meters_fails():
    records, meters = simulated(rounds=100)
    result = audit_of(records, dict(meters, paid=meters["paid"] + 1))
    assert any(f.startswith("meters: seeded + contributed") and "by -1" in f
               for f in result["failures"])


def test_rule_tables_are_marked_expired_by_date():
    # Dates from the regulation's source notes: 653b.1 effective 2021-09-04
    # and expiring 2024-09-04; 653b.2-653b.5 from 2024-03-23 to 2026-03-23.
    def expired(today):
        return {g["section"]: g["expired"] for g in audit_report.rule_tables(today)["tables"]}

    before = expired("2024-06-01")
    assert before["653b.1(c)(4)"] is False and before["653b.4(f)"] is False
    between = expired("2025-01-01")
    assert between["653b.1(c)(4)"] is True and between["653b.5(f)"] is False
    after = expired("2026-03-23")
    assert all(after[s] for s in ("653b.2(b)", "653b.3(b)", "653b.4(f)", "653b.5(f)"))
    assert after["653a.12(c)"] is False  # no date known: never marked


def test_csv_row_of_a_round_and_a_hit():
    # The wager meters count from the cycle's start: 12 wagers of $1 before,
    # this round's two of $1 make 14 and $14.
    round_record = {"seq": 9, "ev": "round", "round": 7, "meter": 100_150_000,
                    "contributions": [[2, 100, 50_000], [5, 100, 50_000]], "prev": "0" * 64,
                    "qualifying_wagers": 14, "wagered": 14_000_000, "hash": "1" * 64}
    row = logexport.csv_row(round_record)
    assert row[:15] == (9, "round", "", "", 7, "", "", "", "", "100.15", "0.10", "2 5", "",
                        14, "14.00")
    assert logexport.CSV_COLUMNS[13:15] == ("qualifying_wagers", "wagered_usd")
    hit = {"seq": 10, "ev": "hit", "seat": 5, "award": 100_150_000, "cycle": 1, "round": 7,
           "time": 1_700_000_000, "hit_value": 100_120_000, "salt": "ab",
           "commitment": "2" * 64, "prev": "1" * 64, "hash": "3" * 64}
    row = logexport.csv_row(hit)
    # 1,700,000,000 s after the epoch is 2023-11-14 22:13:20 UTC.
    assert row[:15] == (10, "hit", "2023-11-14 22:13:20", 1, 7, 5, "", "", "100.15", "", "",
                        "", "100.12", "", "")
    assert json.loads(row[15]) == hit


def test_plot_writes_a_png(tmp_path):
    records, meters = simulated(rounds=500)
    result = audit_of(records, meters)
    path = tmp_path / "meter.png"
    audit_report.plot(result, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result["hit_marks"] and len(result["series"]) == len(records)


def test_the_plots_record_axis_has_whole_record_numbers_only():
    # A short log (four records, as the README's first session makes) once
    # drew ticks at 1.5, 2.5 ...: a record has no half.
    from matplotlib import pyplot

    records, meters = simulated(rounds=3)
    figure = audit_report.meter_figure(audit_of(records, meters))
    try:
        figure.canvas.draw()
        ticks = figure.axes[0].get_xticks()
    finally:
        pyplot.close(figure)
    assert len(ticks) >= 2 and all(tick == int(tick) for tick in ticks), ticks


def _linked(events):
    records, prev = [], chain.GENESIS
    for seq, event in enumerate(events, 1):
        records.append(chain.link(event, seq, prev))
        prev = records[-1]["hash"]
    return records


def test_a_cycle_closed_by_a_configuration_change_reveals_its_committed_value():
    # Configured A1 and reset, then changed to B1 before any round: the A1
    # cycle's seed is withdrawn and its hit value and salt revealed.
    meter, device = Meter(), random.Random(3)
    events = meter.configure("A1") + meter.reset(device.randbytes)
    events += meter.configure("B1") + meter.reset(device.randbytes)
    records = _linked(events)
    assert records[2]["withdrawn"] == 100 * 1_000_000  # A1's $100 minimum
    meters = dict(public_meters(meter), log_seq=4, log_hash=records[-1]["hash"])
    result = audit_of(records, meters)
    assert result["ok"], result["failures"]
    forged = copy.deepcopy(records)
    forged[2]["hit_value"] += 10_000
    forged = relinked(forged)
    result = audit_of(forged, with_head(meters, forged))
    assert "accounts: record 3: the hit value and salt revealed for cycle 1 do not match its " \
           "commitment" in result["failures"]


def test_malformed_records_are_named_not_a_crash():
    records, meters = simulated(rounds=3000)
    forged = copy.deepcopy(records)
    round_record = next(r for r in forged[10:] if r["ev"] == "round")
    round_record["contributions"] = [[1, 100]]
    hit = next(r for r in forged if r["ev"] == "hit")
    del hit["award"]
    forged = relinked(forged)
    result = audit_of(forged, with_head(meters, forged))
    assert not result["ok"]
    assert any(f.startswith("accounts: record %d: a round without its contributions"
                            % round_record["seq"]) for f in result["failures"])
    assert "accounts: record %d: a hit without its seat, award and round" % hit["seq"] \
        in result["failures"]


def test_the_firmware_version_is_shown_when_the_board_sends_it():
    records, meters = simulated(rounds=50)
    plain = audit_report.text(audit_of(records, meters))
    assert "firmware       version not reported by this board" in plain
    status = dict(STATUS, version="0.9.1", build="3f2a9c1")
    result = audit(status, meters, records, [], "test")
    assert result["firmware"] == {"version": "0.9.1", "build": "3f2a9c1"}
    assert "firmware       version 0.9.1, build 3f2a9c1" in audit_report.text(result)


def test_a_table_with_no_meters_snapshot_yet_is_reported_and_fails():
    # The floor's audit of a table whose first meters snapshot has not come:
    # its report said nothing but "KeyError: 'phase'", an internal error.
    result = audit({}, {}, [], ["meters: no meters snapshot from the table yet"], "the floor")
    report = audit_report.text(result)
    assert "Meters\n  none: no meters snapshot to audit" in report
    assert report.splitlines()[-3].startswith("AUDIT FAILED")
    assert "  - meters: no meters snapshot from the table yet" in report
