# uthctl as a person or a script calls it: output, --json shapes, exit codes.
import json
import pathlib
import subprocess
import sys

import pytest

from uthctl.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "round.json"


def _json(capsys, argv):
    assert main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_hand_json(capsys):
    out = _json(capsys, ["hand", "As", "Ks", "Qs", "Js", "10s", "2c", "3d"])
    assert out["category"] == "royal_flush"
    assert out["best"] == ["As", "Ks", "Qs", "Js", "Ts"]
    assert isinstance(out["score"], int)


def test_hand_text_and_errors(capsys):
    assert main(["hand", "2h", "2d", "5c", "5s", "9h"]) == 0
    assert capsys.readouterr().out.strip() == "two_pair: 5s 5c 2h 2d 9h"
    assert main(["hand", "As", "As", "Kd", "Qd", "Jd"]) == 2
    assert "duplicate card As" in capsys.readouterr().err
    assert main(["hand", "As", "Kd", "Qd", "Jd", "1x", "--json"]) == 2
    assert json.loads(capsys.readouterr().out) == {"error": "unknown card '1x'"}


def test_settle_example_file(capsys):
    out = _json(capsys, ["settle", str(EXAMPLE)])
    assert out["round"] == "example-1"
    by_seat = {seat["seat"]: seat["results"] for seat in out["seats"]}
    # Seat 1's quad nines lose to the dealer's straight flush: 500 to 1 on $5.
    assert by_seat[1]["bad_beat"] == {"category": "four_of_a_kind", "odds": 500, "net": 250000}
    # Board 9-9-9-T-J: Play the Board A pays trips 7 to 1.
    assert by_seat[1]["play_the_board"]["net"] == 3500
    assert by_seat[3]["ultimate_pairs"] == {"category": "aa", "odds": 30, "net": 30000}


def test_settle_from_stdin_and_bad_json():
    uthctl = [sys.executable, "-m", "uthctl.cli"]
    done = subprocess.run(uthctl + ["settle", "-", "--json"], input=EXAMPLE.read_text(),
                          capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout)["seats"][0]["seat"] == 1
    done = subprocess.run(uthctl + ["settle", "-"], input="{not json", capture_output=True,
                          text=True)
    assert done.returncode == 2 and "stdin is not JSON" in done.stderr


def test_settle_refuses_a_bad_round(tmp_path, capsys):
    data = json.loads(EXAMPLE.read_text())
    data["seats"][2]["cards"] = ["7c", "Ks"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["settle", str(path), "--json"]) == 2
    assert json.loads(capsys.readouterr().out) == {
        "error": "seat 5: duplicate card Ks (also dealer)"}


def _settle_error(tmp_path, capsys, data, *options):
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    assert main(["settle", str(path), "--json", *options]) == 2
    return json.loads(capsys.readouterr().out)["error"]


def test_settle_refuses_a_stake_over_the_limit(tmp_path, capsys):
    # 100,000 cents by default, as a table's max_stake_cents is.
    data = json.loads(EXAMPLE.read_text())
    data["seats"][0]["wagers"]["trips"] = 10 ** 300
    assert _settle_error(tmp_path, capsys, data) == (
        "seat 1: trips wager is over the stake limit, max_stake_cents 100000")
    data["seats"][0]["wagers"]["trips"] = 100_001
    assert "max_stake_cents 100000" in _settle_error(tmp_path, capsys, data)
    assert "max_stake_cents 100000" in _settle_error(tmp_path, capsys, data,
                                                     "--max-stake", "100000")
    assert _settle_error(tmp_path, capsys, data, "--max-stake", "0") == (
        "max_stake_cents must be whole cents from 1 to 100000000")
    data["max_stake_cents"] = 100_001
    (tmp_path / "round.json").write_text(json.dumps(data))
    assert _json(capsys, ["settle", str(tmp_path / "round.json")])["seats"][0]["seat"] == 1


def test_settle_refuses_unknown_names_whatever_their_value(tmp_path, capsys):
    for where, name, says in (("paytables", "bogus", "unknown wager 'bogus' in paytables"),
                              ("settings", "bogus", "unknown key 'bogus' in settings"),
                              ("settings", "blind", "unknown key 'blind' in settings")):
        data = json.loads(EXAMPLE.read_text())
        data.setdefault(where, {})[name] = None
        assert _settle_error(tmp_path, capsys, data) == says, (where, name)


def test_settle_with_a_payout_limit(capsys):
    # --max-payout limits every wager: seat 1's Bad Beat (500 to 1 on $5, $2,500)
    # to $1,000; seat 3's Ultimate Pairs AA (30 to 1 on $10, $300) is under it.
    out = _json(capsys, ["settle", str(EXAMPLE), "--max-payout", "100000"])
    by_seat = {seat["seat"]: seat["results"] for seat in out["seats"]}
    assert by_seat[1]["bad_beat"] == {"category": "four_of_a_kind", "odds": 500, "net": 100000,
                                      "limited": True, "unlimited": 250000}
    assert by_seat[3]["ultimate_pairs"] == {"category": "aa", "odds": 30, "net": 30000}
    assert main(["settle", str(EXAMPLE), "--max-payout", "100000"]) == 0
    text = capsys.readouterr().out
    assert "+$1,000.00  (limited: the odds pay +$2,500.00)" in text, text
    assert main(["settle", str(EXAMPLE), "--max-payout", "0", "--json"]) == 2
    assert "from 1 to" in json.loads(capsys.readouterr().out)["error"]


def test_paytables_json(capsys):
    tables = _json(capsys, ["paytables"])
    by_key = {(t["wager"], t["paytable"]): t for t in tables}
    assert len(tables) == 17  # trips A-E, bad beat C, board A-C, pairs A-F, blind A-B
    assert by_key[("trips", "E")]["section"] == "653b.2(b)"
    assert by_key[("trips", "E")]["expires"] == "2026-03-23"
    assert by_key[("ultimate_pairs", "F")]["lines"][0] == {"line": "aa_and_dealer_aa",
                                                           "odds": "1000 to 1"}


@pytest.mark.parametrize("wager,letter", [("trips", "E"), ("play_the_board", "A"),
                                          ("ultimate_pairs", "F")])
def test_par_json_has_exact_return(capsys, wager, letter):
    sheet = _json(capsys, ["par", wager, letter])
    numerator, denominator = (int(part) for part in sheet["return"].split("/"))
    assert 0 < numerator < denominator  # every one of these favours the house
    edge = 100 * (1 - numerator / denominator)
    assert abs(sheet["house_edge_percent"] - edge) < 1e-9


def test_par_refuses_unknown_paytable(capsys):
    assert main(["par", "trips", "Z", "--json"]) == 2
    assert "no paytable 'Z' for trips" in json.loads(capsys.readouterr().out)["error"]
