# `uthctl meters` as text: what a floorperson reads at the table. An exposed
# hit value (docs/host-link.md: `meters` says "exposed": true, every round is
# refused until a redraw in service mode) must show, with the way to recover.
from uthctl.analysis.meters_text import format_meters

METERS = {"meter": 100_040_000, "contributed": 40_000, "seeded": 100_000_000, "paid": 0,
          "hits": 0, "cycle": 1, "round": 3, "config": "A1", "phase": "running",
          "commitment": "07ad" * 16, "pending": None, "last_hits": [], "exposed": False,
          "display_cents": 10004, "log_seq": 5, "log_hash": "ab" * 32, "log_dropped": 0}


def test_meters_text_says_an_exposed_hit_value_and_the_way_to_recover():
    text = format_meters(dict(METERS, exposed=True))
    flat = " ".join(text.split())
    assert "EXPOSED" in text
    assert "every round is refused until it is redrawn" in flat
    assert "hold the key (service mode), then send {\"cmd\": \"redraw\"}" in flat
    # An 80-column terminal (the log head's 64-digit hash is longer anyway).
    assert all(len(line) <= 80 for line in text.splitlines() if not line.startswith("log"))


def test_meters_text_is_quiet_when_nothing_is_exposed():
    text = format_meters(METERS)
    assert "EXPOSED" not in text and "redraw" not in text
    assert text.splitlines()[1] == "phase          running"
