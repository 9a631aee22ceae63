# uthctl mystery configs/simulate/verify, checked against figures that do not
# come from the code under test: the configurations typed from 58 Pa. Code
# 653b.1(c)(4), commitments recomputed with hashlib, and logs written by the
# firmware's own store on CPython.
import contextlib
import hashlib
import io
import json
import os

import pytest

from broken_writes import break_meter_writes, mend_meter_writes
from mystery import chain
from mystery.bonus import MysteryBonus
from mystery.meter import RUNNING, Meter
from mystery.refusal import Refused
from mystery.store import Store
from regulation import PRINTED
from uthctl.analysis import mystery_sim
from uthctl.cli import main

MICROS = 1_000_000
# 653b.1(c)(4) as printed, typed once for the tests (tests/logic/regulation.py).
REGULATION = PRINTED
SIM = ["mystery", "simulate", "--config", "B2", "--rounds", "20000", "--seats", "6"]


def _run(capsys, argv):
    code = main(argv)
    return code, capsys.readouterr().out


def _json(capsys, argv, code=0):
    got, out = _run(capsys, argv + ["--json"])
    assert got == code
    return json.loads(out)


def _sha(cents, salt):
    # The commitment as rules.md defines it: SHA-256 of "cents:salt".
    return hashlib.sha256(("%d:%s" % (cents, salt)).encode()).hexdigest()


# ---- configs ----

def test_configs_match_the_regulation(capsys):
    out = _json(capsys, ["mystery", "configs"])
    assert out["section"] == "653b.1(c)(4)"
    rows = {row["name"]: row for row in out["configs"]}
    assert sorted(rows) == sorted(REGULATION)
    for name, (wager, low, high, rate) in REGULATION.items():
        # A rate of r% is r x 100 basis points; "1.5" -> 150.
        rate_bp = round(float(rate) * 100)
        assert rows[name] == {"name": name, "min_wager_cents": wager * 100,
                              "minimum": low * MICROS, "maximum": high * MICROS,
                              "rate_bp": rate_bp}


def test_configs_text(capsys):
    code, out = _run(capsys, ["mystery", "configs"])
    assert code == 0
    lines = out.strip().splitlines()
    assert "653b.1(c)(4)" in lines[0]
    for name, (wager, low, high, rate) in REGULATION.items():
        want = "%s: $%d minimum progressive wager, $%s.00-$%s.00, %s%%" % (
            name, wager, format(low, ","), format(high, ","), rate)
        assert "  " + want in lines


# ---- simulate ----

@pytest.fixture(scope="module")
def b2_run():
    # One 20,000-round run shared by the checks below (the CLI's --json).
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(SIM + ["--seed", "7", "--json"]) == 0
    return buffer.getvalue()


def test_simulate_is_reproducible(b2_run, capsys):
    code, again = _run(capsys, SIM + ["--seed", "7", "--json"])
    assert code == 0 and again == b2_run
    code, other = _run(capsys, SIM + ["--seed", "8", "--json"])
    assert code == 0 and other != b2_run


def test_simulate_json_shape(b2_run):
    out = json.loads(b2_run)
    assert out["ok"] is True and out["problems"] == []
    assert out["config"]["name"] == "B2"
    assert (out["rounds"], out["seats"], out["seed"]) == (20000, 6, 7)
    assert set(out) >= {"meters", "checks", "awards", "uniformity", "hits", "operations",
                        "wager_model"}
    hit = out["hits"][0]
    assert set(hit) == {"cycle", "round", "seat", "award", "payment", "hit_value", "salt",
                        "commitment"}
    # The live cycle's secret is not among the public meters.
    assert "hit_value" not in out["meters"] and "salt" not in out["meters"]
    assert out["uniformity"]["bins"] >= 2 and 0 <= out["uniformity"]["chi2_p_value"] <= 1


def test_simulate_identity_exact_and_awards_in_range(b2_run):
    out = json.loads(b2_run)
    m, hits = out["meters"], out["hits"]
    low, high = 100 * MICROS, 500 * MICROS
    assert m["seeded"] + m["contributed"] == m["paid"] + m["meter"]
    # Every reset seeds the $100 minimum; every hit was paid in full.
    assert m["seeded"] == m["cycle"] * low
    assert m["paid"] == sum(hit["award"] for hit in hits)
    assert m["hits"] == len(hits) > 0 and m["phase"] == RUNNING
    # B2 wagers are $2 or $4 at 3.5%: each contribution is 7 or 14 cents.
    assert m["contributed"] % 70_000 == 0
    # One identity check after every operation: configure, each reset, round and validate.
    assert out["operations"] == 1 + m["cycle"] + 20000 + len(hits)
    assert out["checks"]["identity"] == {"checks": out["operations"], "failures": 0}
    assert all(check["failures"] == 0 for check in out["checks"].values())
    for hit in hits:
        assert low <= hit["award"] <= high and hit["award"] % 10_000 == 0
        assert low <= hit["hit_value"] < high and hit["award"] >= hit["hit_value"]
        assert _sha(hit["hit_value"] // 10_000, hit["salt"]) == hit["commitment"]
    assert [hit["cycle"] for hit in hits] == list(range(1, len(hits) + 1))
    assert {hit["payment"] for hit in hits} == {"table_inventory", "jackpot_slip"}
    awards = out["awards"]
    assert awards["expected_mean"] == (low + high) / 2
    assert awards["mean"] == pytest.approx(sum(h["award"] for h in hits) / len(hits))


def test_simulate_text(capsys):
    code, out = _run(capsys, SIM + ["--seed", "7"])
    assert code == 0
    assert "identity seeded + contributed = paid + meter: exact after each of" in out
    assert "vs expected (minimum + maximum) / 2 = $300.00" in out
    assert "chi-square" in out and "p = " in out
    assert out.strip().endswith("result: ok")


def test_simulate_catches_a_broken_engine(capsys, monkeypatch):
    # An engine that books a cent less as paid than it takes off the meter.
    validate = Meter.validate

    def short_paid(self, payment):
        events = validate(self, payment)
        self.paid -= 10_000
        return events

    monkeypatch.setattr(Meter, "validate", short_paid)
    out = _json(capsys, SIM[:-4] + ["--rounds", "2000", "--seed", "7"], code=2)
    assert out["ok"] is False and out["checks"]["identity"]["failures"] > 0
    assert out["problems"][0].startswith("identity broken after validate")


def test_simulate_refuses_bad_arguments(capsys):
    assert main(SIM[:-2] + ["--seats", "8"]) == 2
    assert "--seats must be 1 to 7" in capsys.readouterr().err
    assert main(["mystery", "simulate", "--rounds", "0"]) == 2


def test_plot_writes_a_png(tmp_path, capsys):
    path = tmp_path / "awards.png"
    code, _ = _run(capsys, SIM[:-4] + ["--rounds", "5000", "--plot", str(path)])
    assert code == 0
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    # 8 x 4.8 inches at 100 dpi.
    assert int.from_bytes(data[16:20], "big") == 800
    assert int.from_bytes(data[20:24], "big") == 480
    assert len(data) > 10_000


@pytest.mark.slow
def test_no_output_reveals_the_live_hit_value(tmp_path, capsys):
    # The same seed in the library gives the engine's state at the end of the run.
    sim = mystery_sim.simulate("B2", 20000, 6, 7)
    assert sim.meter.phase == RUNNING
    secret, salt = sim.meter._hit_value, sim.meter._salt
    log = tmp_path / "sim.log"
    outputs = [_run(capsys, SIM + ["--seed", "7", "--log", str(log)])[1],
               _run(capsys, SIM + ["--seed", "7", "--json"])[1],
               _run(capsys, ["mystery", "verify", str(log)])[1],
               _run(capsys, ["mystery", "verify", str(log), "--json"])[1],
               log.read_text()]
    cents = secret // 10_000
    for text in outputs:
        assert salt not in text
        assert '"hit_value": %d' % secret not in text
        assert "$%s.%02d" % (format(cents // 100, ","), cents % 100) not in text
    # Yet it is committed: the log's last reset publishes its commitment.
    last_reset = [json.loads(line) for line in outputs[-1].splitlines()
                  if '"ev": "reset"' in line][-1]
    assert last_reset["commitment"] == _sha(cents, salt)


# ---- verify ----

def _play_to_hit(bonus):
    # Seven seats at $5 on A1 (2%): 70 cents a round, a hit within 143 rounds.
    seats = [(seat, True, 500) for seat in range(1, 8)]
    for _ in range(200):
        if any(event["ev"] == "hit" for event in bonus.lock_round(seats)):
            return
    raise AssertionError("no hit")


@pytest.fixture
def real_log(tmp_path):
    # The firmware's store on CPython, large segments so nothing is trimmed:
    # two cycles that hit and a third still running.
    root = tmp_path / "flash"
    root.mkdir()
    store = Store(str(root), segment_records=10_000)
    bonus = MysteryBonus(store, os.urandom)
    assert bonus.boot() == []
    bonus.configure("A1")
    bonus.reset()
    for payment in ("table_inventory", "jackpot_slip"):
        _play_to_hit(bonus)
        bonus.validate(payment)
        bonus.reset()
    records = list(store.read_log())
    assert records[0]["seq"] == 1 and records[-1]["ev"] == "reset"
    return records, bonus


def _write(tmp_path, records, name="log.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return str(path)


def _relink(records, start):
    # Re-hash the chain from `start` on, as a forger who rewrote it would.
    out = records[:start]
    prev = out[-1]["hash"] if out else chain.GENESIS
    for record in records[start:]:
        event = {k: v for k, v in record.items() if k not in ("seq", "prev", "hash")}
        out.append(chain.link(event, record["seq"], prev))
        prev = out[-1]["hash"]
    return out


def _hit_index(records):
    return next(i for i, record in enumerate(records) if record["ev"] == "hit")


def test_verify_passes_a_real_log(tmp_path, capsys, real_log):
    records, bonus = real_log
    code, out = _run(capsys, ["mystery", "verify", _write(tmp_path, records)])
    assert code == 0
    assert out.startswith("ok: %d records chain" % len(records))
    out = _json(capsys, ["mystery", "verify", _write(tmp_path, records)])
    assert out["ok"] is True and out["hits"] == 2 and out["anchored"] == 2
    # Nothing the check prints gives away the running cycle's hit value.
    assert bonus.meter._salt not in json.dumps(out)


def test_verify_names_an_altered_record(tmp_path, capsys, real_log):
    records, _ = real_log
    index = len(records) // 2
    records[index] = dict(records[index], ev=records[index]["ev"] + "x")
    code, out = _run(capsys, ["mystery", "verify", _write(tmp_path, records)])
    assert code == 2
    assert out.strip() == "log check FAILED: record %d was altered" % records[index]["seq"]


def test_verify_names_a_removed_record(tmp_path, capsys, real_log):
    records, _ = real_log
    index = len(records) // 2
    following = records[index + 1]["seq"]
    del records[index]
    out = _json(capsys, ["mystery", "verify", _write(tmp_path, records)], code=2)
    assert out["ok"] is False and out["problem"] == "sequence breaks at %d" % following


@pytest.mark.parametrize("field", ["salt", "hit_value"])
def test_verify_catches_a_reveal_that_does_not_match(tmp_path, capsys, real_log, field):
    records, _ = real_log
    index = _hit_index(records)
    hit = dict(records[index])
    hit[field] = "0" * 32 if field == "salt" else hit["hit_value"] + 10_000
    records[index] = hit
    # The chain is rewritten to hold, so only the commitment can catch it.
    records = _relink(records, index)
    assert chain.verify(records)[0]
    code, out = _run(capsys, ["mystery", "verify", _write(tmp_path, records)])
    assert code == 2
    assert out.startswith("log check FAILED: record %d: revealed hit value and salt of "
                          "cycle 1 do not match the commitment published at its reset"
                          % hit["seq"])


def _anchor(record):
    return "%d:%s" % (record["seq"], record["hash"])


def test_verify_anchors_the_end_at_the_meters_head(tmp_path, capsys, real_log):
    records, bonus = real_log
    meters = bonus.meters()  # what `uthctl meters` reads from the board
    head = "%d:%s" % (meters["log_seq"], meters["log_hash"])
    assert head == _anchor(records[-1])
    out = _json(capsys, ["mystery", "verify", _write(tmp_path, records), "--head", head])
    assert out["ok"] and out["starts_at"] == "genesis" and out["ends_at"] == "the meter's head"
    # The last two records cut off: the chain alone still holds, the head does not.
    cut = _write(tmp_path, records[:-2], "cut.jsonl")
    assert "records may be missing after it" in _run(capsys, ["mystery", "verify", cut])[1]
    code, text = _run(capsys, ["mystery", "verify", cut, "--head", head])
    assert code == 2
    assert text.strip() == ("log check FAILED: the log ends at record %d, the meter's head is "
                            "record %d: records are missing from its end"
                            % (records[-3]["seq"], records[-1]["seq"]))


def test_verify_names_a_log_exported_after_the_meters_were_read(tmp_path, capsys, real_log):
    records, _ = real_log
    head = _anchor(records[-3])  # meters read two records before the export
    code, text = _run(capsys, ["mystery", "verify", _write(tmp_path, records), "--head", head])
    assert code == 2
    assert text.strip() == ("log check FAILED: the log runs past the meter's head (record %d) "
                            "to record %d: read the meters after exporting the log"
                            % (records[-3]["seq"], records[-1]["seq"]))


def test_verify_anchors_the_start_after_an_earlier_export(tmp_path, capsys, real_log):
    records, _ = real_log
    split = len(records) // 2
    earlier, later = records[:split], records[split:]
    after = _anchor(earlier[-1])
    out = _json(capsys, ["mystery", "verify", _write(tmp_path, later), "--after", after])
    assert out["ok"] and out["starts_at"] == "after record %d" % earlier[-1]["seq"]
    # The export's first record missing: its start no longer follows the earlier one.
    code, text = _run(capsys, ["mystery", "verify", _write(tmp_path, later[1:]), "--after",
                               after])
    assert code == 2
    assert text.strip() == ("log check FAILED: record %d does not follow record %d of the "
                            "earlier export" % (later[1]["seq"], earlier[-1]["seq"]))


def test_verify_holds_the_first_record_against_what_the_board_dropped(tmp_path, capsys,
                                                                       real_log):
    records, _ = real_log
    assert len(records) > 20
    cut = _write(tmp_path, records[13:])
    code, text = _run(capsys, ["mystery", "verify", cut])
    assert code == 2
    assert text.strip() == (
        "log check FAILED: the log starts at record 14: records 1-13 are missing from the "
        "log's front; give the earlier export it joins, or --from 14 to check it as a part")
    code, text = _run(capsys, ["mystery", "verify", cut, "--dropped", "0"])
    assert code == 2 and "records 1-13 are missing from the log's front" in text
    # The board's bounded log dropped exactly those: the log starts where the board's does.
    out = _json(capsys, ["mystery", "verify", cut, "--dropped", "13"])
    assert out["ok"] and not out["part"]
    assert out["starts_at"].startswith("the board's oldest kept record")
    # A part, said so: checked, and the output says first that it is a part.
    code, text = _run(capsys, ["mystery", "verify", cut, "--from", "14"])
    assert code == 0 and text.startswith("ok for a part of the log, from record 14: ")
    code, text = _run(capsys, ["mystery", "verify", cut, "--from", "13"])
    assert code == 2 and "starts at record 14, not at record 13 (--from)" in text


def test_verify_a_log_from_record_one_starts_at_genesis(tmp_path, capsys, real_log):
    records, _ = real_log
    # Forged from the very first record on, from a start other than genesis.
    event = {k: v for k, v in records[0].items() if k not in ("seq", "prev", "hash")}
    forged = [chain.link(event, 1, "1" * 64)]
    forged = _relink(forged + records[1:], 1)
    assert chain.verify(forged)[0]
    code, text = _run(capsys, ["mystery", "verify", _write(tmp_path, forged)])
    assert code == 2
    assert text.strip() == "log check FAILED: record 1 does not start from the genesis hash"


@pytest.mark.parametrize("anchor", ["12", "x:" + "a" * 64, "3:" + "a" * 63, "3:" + "G" * 64])
def test_verify_refuses_a_malformed_anchor(tmp_path, capsys, real_log, anchor):
    records, _ = real_log
    assert main(["mystery", "verify", _write(tmp_path, records), "--head", anchor]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "expected SEQ:HASH" in err


def test_verify_a_simulated_log_and_bad_input(tmp_path, capsys):
    log = tmp_path / "sim.log"
    code, _ = _run(capsys, SIM[:-4] + ["--rounds", "3000", "--log", str(log)])
    assert code == 0
    out = _json(capsys, ["mystery", "verify", str(log)])
    assert out["ok"] is True and out["hits"] == out["anchored"] > 0
    bad = tmp_path / "bad.log"
    bad.write_text(log.read_text().splitlines()[0] + "\n{not json\n")
    assert main(["mystery", "verify", str(bad)]) == 2
    assert "log line 2 is not JSON" in capsys.readouterr().err


# ---- verify: the host link's own export, and what is not a log ----

def _replies(records, request_id=7):
    # An export as the host link sends it (docs/host-link.md): one reply a
    # record, then the reply that closes it with their count.
    return ([{"reply": "log", "record": record} for record in records]
            + [{"ok": True, "reply": "log", "count": len(records), "id": request_id}])


def test_verify_reads_the_host_links_log_replies(tmp_path, capsys, real_log):
    records, bonus = real_log
    meters = bonus.meters()
    head = "%d:%s" % (meters["log_seq"], meters["log_hash"])
    out = _json(capsys, ["mystery", "verify", _write(tmp_path, _replies(records)), "--head",
                         head])
    assert out["ok"] is True and out["records"] == len(records)
    assert (out["hits"], out["anchored"]) == (2, 2)
    assert (out["starts_at"], out["ends_at"]) == ("genesis", "the meter's head")
    # Two exports one after the other ("since"), each closed by its own reply.
    split = len(records) // 2
    both = _replies(records[:split], 1) + _replies(records[split:], 2)
    out = _json(capsys, ["mystery", "verify", _write(tmp_path, both, "two.jsonl")])
    assert out["ok"] is True and out["records"] == len(records)


def _refusal(capsys, argv):
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and captured.out == "", captured
    return lines[0]


def test_verify_checks_the_replies_count_and_end(tmp_path, capsys, real_log):
    records, _ = real_log
    lines = _replies(records)
    lines[-1]["count"] = len(records) + 1
    text = _refusal(capsys, ["mystery", "verify", _write(tmp_path, lines)])
    assert text == ("uthctl: error: log line %d: the board's reply counts %d records, the "
                    "export holds %d before it" % (len(lines), len(records) + 1, len(records)))
    cut = _replies(records)[:-1]  # the closing reply never came: the export was cut short
    text = _refusal(capsys, ["mystery", "verify", _write(tmp_path, cut)])
    assert text.startswith("uthctl: error: log line 1 on: ") and "cut short" in text
    refused = [{"ok": False, "error": "since must be a record number, 0 or more", "id": 3}]
    text = _refusal(capsys, ["mystery", "verify", _write(tmp_path, refused)])
    assert text == ("uthctl: error: log line 1: the board refused the export: since must be "
                    "a record number, 0 or more")


def _malformed(records, case):
    # (lines, the line number that is not a record)
    hit = _hit_index(records)
    if case == "bare seq":
        return [{"seq": 1}], 1
    if case == "reply without prev":
        return [{"reply": "log", "record": {"seq": 1}}], 1
    if case == "reply record not an object":
        return [{"reply": "log", "record": [1, 2]}], 1
    if case == "seq as text":
        return records[:2] + [dict(records[2], seq=str(records[2]["seq"]))], 3
    if case == "seq true":
        return [dict(records[0], seq=True)], 1
    if case == "short hash":
        return records[:3] + [dict(records[3], hash=records[3]["hash"][:63])], 4
    if case == "hit without salt":
        return records[:hit] + [{k: v for k, v in records[hit].items() if k != "salt"}], hit + 1
    if case == "reset cycle a list":
        reset = next(i for i, r in enumerate(records) if r["ev"] == "reset")
        return records[:reset] + [dict(records[reset], cycle=[1])], reset + 1
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["bare seq", "reply without prev", "reply record not an "
                                  "object", "seq as text", "seq true", "short hash",
                                  "hit without salt", "reset cycle a list"])
def test_verify_refuses_a_malformed_record_by_its_line(tmp_path, capsys, real_log, case):
    records, _ = real_log
    lines, bad = _malformed(records, case)
    text = _refusal(capsys, ["mystery", "verify", _write(tmp_path, lines)])
    assert text.startswith("uthctl: error: log line %d is not a log record: " % bad), text
    out = _json(capsys, ["mystery", "verify", _write(tmp_path, lines)], code=2)
    assert list(out) == ["error"] and out["error"].startswith("log line %d " % bad)


@pytest.mark.parametrize("text", ["", "\n\n", json.dumps({"ok": True, "reply": "log",
                                                          "count": 0}) + "\n"])
def test_verify_refuses_an_empty_log(tmp_path, capsys, text):
    path = tmp_path / "empty.jsonl"
    path.write_text(text)
    code, out = _run(capsys, ["mystery", "verify", str(path)])
    assert code == 2 and out.strip() == "log check FAILED: the log holds no records"
    out = _json(capsys, ["mystery", "verify", str(path)], code=2)
    assert out["ok"] is False and out["records"] == 0
# ---- a log with a redraw ----

def _commitment(value, salt):
    # SHA-256 of "<cents>:<salt>", as docs/mystery.md defines the commitment.
    return hashlib.sha256(("%d:%s" % (value // 10_000, salt)).encode()).hexdigest()


@pytest.fixture
def redrawn_log(tmp_path):
    # The round that hits cannot write its meter record (a folder where its
    # copy goes, broken_writes.py): its records land past the head, the reboot finds
    # the value exposed, a service-mode redraw replaces it, and the new value
    # is played to its hit.
    root = tmp_path / "flash"
    root.mkdir()
    bonus = MysteryBonus(Store(str(root), segment_records=10_000), os.urandom)
    assert bonus.boot() == []
    bonus.configure("A1")
    bonus.reset()
    seats = [(seat, True, 500) for seat in range(1, 8)]  # 70 cents a round
    while bonus.meter.meter + 700_000 <= bonus.meter._hit_value:
        bonus.lock_round(seats)
    break_meter_writes(str(root))
    with pytest.raises(Refused):
        bonus.lock_round(seats)  # the round that hits
    assert bonus.fault is not None
    mend_meter_writes(str(root))
    bonus = MysteryBonus(Store(str(root), segment_records=10_000), os.urandom)
    assert len(bonus.boot()) == 2 and bonus.meter.exposed
    bonus.redraw()
    _play_to_hit(bonus)
    return list(bonus.store.read_log())


def test_verify_checks_a_redraw_against_the_commitment_it_replaces(tmp_path, capsys,
                                                                  redrawn_log):
    records = redrawn_log
    kinds = [record["ev"] for record in records]
    assert kinds[:2] == ["config", "reset"] and kinds.count("redraw") == 1
    redraw = records[kinds.index("redraw")]
    assert _commitment(redraw["hit_value"], redraw["salt"]) == records[1]["commitment"]
    out = _json(capsys, ["mystery", "verify", _write(tmp_path, records)])
    assert out["ok"] is True and (out["hits"], out["redraws"], out["anchored"]) == (1, 1, 1)
    assert "values redrawn after a failed commit exposed them: 1" in _run(
        capsys, ["mystery", "verify", _write(tmp_path, records)])[1]
    # The hit is checked against the redraw's commitment, not the reset's.
    hit = records[kinds.index("hit")]
    assert hit["commitment"] == redraw["commitment"] != records[1]["commitment"]


@pytest.mark.parametrize("what", ["redraw", "hit"])
def test_verify_catches_a_redraw_or_its_hit_that_does_not_match(tmp_path, capsys, redrawn_log,
                                                                 what):
    records = redrawn_log
    index = [record["ev"] for record in records].index(what)
    records[index] = dict(records[index], hit_value=records[index]["hit_value"] + 10_000)
    records = _relink(records, index)
    code, out = _run(capsys, ["mystery", "verify", _write(tmp_path, records)])
    assert code == 2
    expected = {"redraw": "the hit value and salt a redraw of cycle 1 reveals do not match",
                "hit": "do not match the commitment published at its redraw"}[what]
    assert expected in out, out
