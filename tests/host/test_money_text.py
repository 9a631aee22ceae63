# One amount reads the same in every uthctl output (firmware/mystery/money.py):
# whole cents always, a fraction of a cent by its significant digits. Amounts
# come from 653b.1(c)(4) as typed here: C5 takes 0.5% of a $5 minimum wager,
# 2.5 cents, so a $250 reset plus one such contribution is $250.025.
import json
import pathlib

from uthctl.analysis.meters_text import format_meters
from uthctl.cli import main
from uthctl.commands.monitor_text import event_line
from uthctl.links.logexport import csv_row

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "round.json"
C5_CONTRIBUTION = 500 * 50  # $5 in cents x 0.5% in basis points = micro-dollars
C5_MINIMUM = 250 * 1_000_000
METERS = {"meter": C5_MINIMUM + C5_CONTRIBUTION, "contributed": C5_CONTRIBUTION,
          "seeded": C5_MINIMUM, "paid": 0, "hits": 0, "cycle": 1, "round": 1, "config": "C5",
          "phase": "running", "commitment": "07ad" * 16, "pending": None, "last_hits": [],
          "exposed": False, "display_cents": 25_002, "log_seq": 3, "log_hash": "ab" * 32,
          "log_dropped": 0}


def test_meters_show_a_fraction_of_a_cent_by_its_digits():
    lines = format_meters(METERS).splitlines()
    assert "meter          $250.025" in lines
    assert "contributed    $0.025" in lines
    assert "display        $250.02" in lines  # the LED meter shows whole cents


def test_simulate_shows_the_same_amount_the_same_way(capsys):
    argv = ["mystery", "simulate", "--config", "C5", "--rounds", "1", "--seats", "1",
            "--seed", "1"]
    assert main(argv + ["--json"]) == 0
    meters = json.loads(capsys.readouterr().out)["meters"]
    # Seed 1's one seat bets the $5 minimum (the run says so in its meters).
    assert (meters["contributed"], meters["meter"]) == (C5_CONTRIBUTION, METERS["meter"])
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert ("meters: seeded $250.00 + contributed $0.025 = paid $0.00 + meter $250.025\n"
            in text)


def test_monitor_and_csv_agree():
    event = {"ev": "contribution", "seat": 2, "wager": 500, "amount": C5_CONTRIBUTION}
    assert event_line(event) == "  seat 2: $5.00 wager contributes $0.025"
    record = {"seq": 4, "ev": "round", "round": 1, "meter": METERS["meter"],
              "contributions": [[2, 500, C5_CONTRIBUTION]]}
    assert csv_row(record)[9:11] == ("250.025", "0.025")  # no "$" or "," for a spreadsheet


def test_settle_groups_thousands_and_signs_the_net(capsys):
    # Seat 1's quad nines lose to a straight flush: Bad Beat pays 500 to 1 on $5.
    assert main(["settle", str(EXAMPLE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split()[0] == "bad_beat" and line.endswith(" +$2,500.00") for line in lines)
    assert any(line.endswith(" -$5.00") for line in lines)
