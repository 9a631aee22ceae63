# The audit with the table's record keys (analysis/table_audit.py, record_auth.py):
# a log the firmware's own store wrote, signed from its key record on. The
# attack of issue 25: the validating employee changed in a copy of the log,
# every later hash recomputed and the meters' head moved to match, so the
# chain, the commitments and the accounts all verify. Only the key tells.
import json
import os

import pytest

from mystery import chain
from mystery.bonus import MysteryBonus
from mystery.store import Store
from uthctl.analysis import record_auth
from uthctl.analysis.audit_report import text
from uthctl.analysis.table_audit import audit
from uthctl.cli import main as uthctl

SEATS = [(1, True, 500)]  # one seat: nothing carried past a hit into the next cycle
STATUS = {"state": "betting", "payment": "jackpot_slip", "fault": None}


def _lowest_value(n):
    # Bytes that draw A1's lowest hit value: the first contribution hits.
    return bytes(n)


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "table-3.keys"
    record_auth.add_key(path, "3")
    return path


def _played(tmp_path, key_file):
    # A table that plays a round, is given its key, and hits and validates
    # (employee E100) after it: (records, meters).
    root = tmp_path / "flash"
    root.mkdir()
    bonus = MysteryBonus(Store(str(root)), _lowest_value)
    assert bonus.boot() == []
    bonus.configure("A1")
    bonus.reset()
    _, key = record_auth.newest_key(key_file)
    bonus.provision(key)
    hit = bonus.lock_round(SEATS)
    assert [r["ev"] for r in hit] == ["round", "hit"], hit
    bonus.validate("jackpot_slip", "E100", "S7")
    bonus.reset()
    bonus.lock_round(SEATS)
    return list(bonus.log_since(0)), bonus.meters()


def _rewritten(records, meters, employee):
    # The validation's employee changed, every hash from it on recomputed,
    # the meters' head moved to the new last hash: the authenticators stay
    # as they were, for the rewriter has no key to make new ones.
    forged, prev = [], None
    for record in records:
        record = dict(record)
        if record["ev"] == "validated":
            record["employee"] = employee
        if prev is not None:
            record["prev"] = prev
        record["hash"] = chain.record_hash(record)
        prev = record["hash"]
        forged.append(record)
    return forged, dict(meters, log_hash=prev)


def test_an_honest_signed_log_verifies_and_counts_its_signed_records(tmp_path, key_file):
    records, meters = _played(tmp_path, key_file)
    result = audit(STATUS, meters, records, [], "test", keys=record_auth.load_keys(key_file))
    assert result["ok"], result["failures"]
    kid, _ = record_auth.newest_key(key_file)
    # config, reset unsigned; key, round, hit, validated, payment..., all after signed.
    assert result["keys"]["unsigned"] == 2 and result["keys"]["signed"] == len(records) - 2
    assert result["keys"]["key_id"] == kid == meters["key_id"]
    report = text(result)
    assert "%d records signed and verified, 2 unsigned" % (len(records) - 2) in report
    assert "every authenticator" in report


def test_the_validating_employee_changed_with_every_later_hash_recomputed_fails(
        tmp_path, key_file):
    records, meters = _played(tmp_path, key_file)
    forged, forged_meters = _rewritten(records, meters, "E999")
    validated = [r for r in forged if r["ev"] == "validated"][0]
    # The rewrite is one the chain and the accounts cannot see ...
    unkeyed = audit(STATUS, forged_meters, forged, [], "test")
    assert unkeyed["ok"], unkeyed["failures"]
    assert "NOT CHECKED" in text(unkeyed)
    # ... and the key file can: the validation and every record after it.
    keyed = audit(STATUS, forged_meters, forged, [], "test",
                  keys=record_auth.load_keys(key_file))
    assert not keyed["ok"]
    altered = ["record keys: record %d's authenticator does not match its key: forged or "
               "altered" % r["seq"] for r in forged if r["seq"] >= validated["seq"]]
    assert keyed["failures"] == altered, keyed["failures"]


def test_a_record_stripped_of_its_authenticator_fails(tmp_path, key_file):
    records, meters = _played(tmp_path, key_file)
    last = dict(records[-1])
    del last["auth"]
    result = audit(STATUS, meters, records[:-1] + [last], [], "test",
                   keys=record_auth.load_keys(key_file))
    assert not result["ok"]
    assert any("carries no authenticator" in f for f in result["failures"]), result["failures"]


def test_a_board_whose_key_the_file_lacks_fails(tmp_path, key_file):
    records, meters = _played(tmp_path, key_file)
    other = tmp_path / "other.keys"
    record_auth.add_key(other, "3")
    result = audit(STATUS, meters, records, [], "test", keys=record_auth.load_keys(other))
    assert not result["ok"]
    assert "record keys: the board's key in force, %s, is not in the key file" % (
        meters["key_id"]) in result["failures"]


def test_audit_refuses_a_key_file_others_can_read_before_asking_the_board(
        tmp_path, key_file, capsys):
    os.chmod(key_file, 0o644)
    # No board is on this port: the key file is refused first.
    code = uthctl(["audit", "--port", str(tmp_path / "no-board"), "--key-file", str(key_file),
                   "--json"])
    out, _ = capsys.readouterr()
    assert code == 2
    assert "can be read by others: chmod 600 it" in json.loads(out)["error"]


def _verify(capsys, path, key_file):
    capsys.readouterr()
    code = uthctl(["mystery", "verify", str(path), "--key-file", str(key_file)])
    return code, capsys.readouterr().out


def test_mystery_verify_checks_each_authenticator_with_the_key_file(tmp_path, key_file, capsys):
    records, meters = _played(tmp_path, key_file)
    honest, forged = tmp_path / "honest.jsonl", tmp_path / "forged.jsonl"
    honest.write_text("".join(json.dumps(r) + "\n" for r in records))
    rewritten, _ = _rewritten(records, meters, "E999")
    forged.write_text("".join(json.dumps(r) + "\n" for r in rewritten))
    code, out = _verify(capsys, honest, key_file)
    assert code == 0 and "authenticators: %d signed records verify with the key file, 2 " \
        "unsigned" % (len(records) - 2) in out, out
    code, out = _verify(capsys, forged, key_file)
    validated = [r for r in rewritten if r["ev"] == "validated"][0]
    assert code == 2, out
    assert "log check FAILED: record %d's authenticator does not match its key" % (
        validated["seq"]) in out, out
