# uthctl signage: the sign text for the Must-Hit-By Mystery bonus (653b.1(b)).
# The figures are typed from the table of 653b.1(c)(4), not read from the
# firmware: (minimum progressive wager $, minimum $, maximum $, rate %).
import json
import pathlib
import re

import pytest

from uthctl.cli import main

PRINTED = {
    "A1": ("1", "100.00", "200.00", "2"), "A2": ("2", "100.00", "200.00", "1.5"),
    "A5": ("5", "100.00", "250.00", "1"), "B1": ("1", "100.00", "500.00", "5"),
    "B2": ("2", "100.00", "500.00", "3.5"), "B5": ("5", "100.00", "500.00", "2"),
    "C1": ("1", "250.00", "500.00", "2"), "C2": ("2", "250.00", "500.00", "1.5"),
    "C5": ("5", "250.00", "500.00", "0.5"), "D1": ("1", "250.00", "1,000.00", "5"),
    "D2": ("2", "250.00", "1,000.00", "3"), "D5": ("5", "250.00", "1,000.00", "2"),
}
DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "signage.md"


def _sign(capsys, *argv, code=0):
    assert main(["signage", *argv]) == code
    out, err = capsys.readouterr()
    return out.rstrip("\n") if code == 0 else err.strip()


@pytest.mark.parametrize("name", sorted(PRINTED))
def test_each_sign_states_the_configurations_figures(capsys, name):
    wager, low, high, rate = PRINTED[name]
    lines = _sign(capsys, name.lower()).splitlines()
    assert lines[0] == "MUST-HIT-BY MYSTERY BONUS"
    assert "This table offers the Must-Hit-By Mystery bonus." in lines
    assert "The jackpot must hit by $%s." % high in lines
    assert ("To qualify, place an Ultimate Texas Hold 'Em wager and a progressive payout "
            "wager of at least $%s." % wager) in lines
    assert "%s%% of each qualifying progressive payout wager is added to the jackpot." \
        % rate in lines
    text = "\n".join(lines)
    assert "starts at $%s" % low in text and "between $%s and $%s" % (low, high) in text
    assert "100% of the jackpot on the meter" in text
    # The display's maximum as the meter shows it: no "$", no thousands comma.
    assert lines[-1] == 'The display shows the jackpot, then "hit bY" and "%s".' \
        % high.replace(",", "")


def test_the_document_holds_what_the_command_prints(capsys):
    blocks = dict(re.findall(r"### (\w\d)\n\n```text\n(.*?)\n```", DOC.read_text(), re.S))
    assert sorted(blocks) == sorted(PRINTED)
    for name, text in blocks.items():
        assert _sign(capsys, name) == text, name


def test_a_fixed_wager_is_worded_with_its_contribution(capsys):
    text = _sign(capsys, "D5", "--wager", "5")
    assert "a progressive payout wager of $5.00." in text
    assert "2% of each qualifying $5.00 progressive payout wager ($0.10) is added" in text
    text = _sign(capsys, "A2", "--wager", "$4.00")  # 1.5% of $4 = 6 cents
    assert "1.5% of each qualifying $4.00 progressive payout wager ($0.06)" in text
    assert "below A5's minimum of $5" in _sign(capsys, "A5", "--wager", "4.99", code=2)
    assert "dollars, such as 5 or 5.00" in _sign(capsys, "A1", "--wager", "1.234", code=2)


def test_all_json_and_refusals(capsys):
    text = _sign(capsys, "--all")
    assert [line for line in text.splitlines() if line.startswith("Configuration ")] == [
        "Configuration %s:" % name for name in sorted(PRINTED)]
    signs = json.loads(_sign(capsys, "A1", "--json"))
    assert [sign["config"] for sign in signs] == ["A1"]
    rules = {line["text"]: line["rule"] for line in signs[0]["lines"]}
    assert rules["The jackpot must hit by $200.00."] == "653b.1(c)(3), (c)(4)"
    assert all(rule.startswith("653b.1") for rule in rules.values())
    assert "give one configuration NAME or --all" in _sign(capsys, code=2)
    assert "unknown configuration 'E1'" in _sign(capsys, "E1", code=2)
