# Every benchmark runs from a clean checkout by its documented command, at its
# smallest size: `make bench`'s and `make bench-floor`'s recipes as the
# Makefile gives them, and each bench/*.py a document names, as a subprocess
# with nothing but the repository's own paths (no PYTHONPATH, run from the
# root as a person would). A run that stops fails; its figures are printed
# (-s shows them) and never judged. The emulators' benches take minutes even
# at their smallest (the emulated Pico deploys for a minute before its first
# figure), so here they only load: their imports are what a clean clone broke.
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "floor"))
import servers  # noqa: E402

# The smallest sizes: a few rounds, a few hundred records or hands.
MAKE_BENCH_SMALL = ["--hands", "200", "--repeats", "1", "--pairs", "1000", "--settle-calls",
                    "10", "--lock-rounds", "2", "--link-runs", "1", "--no-pico", "--no-esp32"]
MAKE_BENCH_FLOOR_SMALL = ["--stored", "300", "--taken", "200"]
# Drivers of the emulated Pico and ESP32: loaded, not run (see above).
EMULATOR_DRIVERS = ["pico_bench", "pico_lock_key", "pico_round", "image_compare",
                    "esp32_bench", "esp32_lock", "esp32_census", "pico_drbg",
                    "start_check_run"]
# Scripts that run on the chip or the unix port, put there by a driver this
# file runs or loads: each named with the driver that runs it.
CHIP_SIDE = {
    "auth_pieces": "image_compare (on the emulated Pico)",
    "heap_census": "heap_report, from run.py (make bench) on the unix port",
    "sim_overhead": "heap_report, from run.py (make bench) on the unix port",
    "pico_boot": "pico_bench (the emulated Pico's /boot.py)",
    "round_profile": "pico_round (on the emulated Pico)",
    "soak_heap_board": "soak_heap, on the unix port",
    "round_command": "pico_round on the emulated Pico; run here on the unix port",
    "start_check": "start_check_run (on the emulated Pico and the unix port)",
}
# Modules the benches import, run with the bench that imports them.
IMPORTED = {"heap_report": "run.py (make bench), pico_bench and image_compare import it"}
RUN_HERE = {"run", "link_answers", "floor_intake", "floor_page_clients", "floor_pending",
            "vboard_lock", "soak_heap", "round_command", "store_flash", "program_walk"}


def bench(argv, timeout=600, env=None):
    # One documented command from the repository's root; its output printed.
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(argv, cwd=ROOT, env=dict(clean, **(env or {})), capture_output=True,
                          text=True, timeout=timeout)
    print(done.stdout[-3000:])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def recipe(target):
    # The command of a one-line Makefile recipe, with $(BIN)/python as this Python.
    text = (ROOT / "Makefile").read_text()
    found = re.search(r"^%s:.*\n\t(.+)$" % re.escape(target), text, re.M)
    assert found, "no recipe for make %s" % target
    return [sys.executable if word == "$(BIN)/python" else word for word in found[1].split()]


def need(why_not):
    if why_not is not None:
        pytest.skip(why_not)


def test_every_bench_a_document_names_is_run_or_loaded_here():
    named = set()
    for doc in [ROOT / "README.md", ROOT / "Makefile", *sorted((ROOT / "docs").glob("*.md"))]:
        named |= set(re.findall(r"(?<![\w/])bench/(\w+)\.py", doc.read_text()))
    assert named, "no document names a bench"
    covered = RUN_HERE | set(EMULATOR_DRIVERS) | set(CHIP_SIDE) | set(IMPORTED)
    assert named <= covered, sorted(named - covered)
    assert all((ROOT / "bench" / (name + ".py")).is_file() for name in covered)


@pytest.mark.board
def test_make_bench_runs_at_its_smallest():
    out = bench(recipe("bench") + MAKE_BENCH_SMALL)
    assert "The host link's answers" in out  # its last part without the emulators


def test_make_bench_floor_runs_at_its_smallest():
    need(servers.why_no_postgres())
    out = bench(recipe("bench-floor") + MAKE_BENCH_FLOOR_SMALL)
    assert "SQLite" in out and "PostgreSQL" in out and "left out" not in out


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_the_floor_page_bench_runs_at_its_smallest(db):
    if db == "postgresql":
        need(servers.why_no_postgres())
    out = bench([sys.executable, "bench/floor_page_clients.py", "--db", db, "--clients", "3",
                 "--tables", "2", "--hits", "1", "--idle", "1"])
    assert "a pending hit on every viewer's stream" in out


@pytest.mark.board
def test_the_floor_pending_bench_runs_at_its_smallest():
    need(servers.why_no_mosquitto())
    out = bench([sys.executable, "bench/floor_pending.py", "--runs", "1"])
    assert "to its pending hit in the floor's database, 1 runs" in out


@pytest.mark.board
def test_the_link_answers_bench_runs_at_its_smallest():
    out = bench([sys.executable, "bench/link_answers.py", "--runs", "1"])
    assert "a board at its REPL" in out


@pytest.mark.board
@pytest.mark.parametrize("signed", [False, True])
def test_the_virtual_boards_lock_bench_runs_at_its_smallest(signed):
    out = bench([sys.executable, "bench/vboard_lock.py", "--rounds", "2"]
                + (["--signed"] if signed else []))
    assert "LOCK set -> \"locked\" event" in out


def test_the_heap_soak_runs_at_its_smallest(tmp_path):
    bench([sys.executable, "bench/soak_heap.py", "--rounds", "30", "--out", str(tmp_path),
           "rp2040_pico"])
    assert (tmp_path / "soak-heap.json").is_file()


def test_the_round_command_bench_runs_on_the_unix_port(micropython):
    # Its documented command: the 32-bit port at the Pico's heap.
    from uthctl.boards import heaps

    heap = heaps.heapsize(heaps.budget("rp2040_pico"))
    out = bench([micropython, "-X", "heapsize=" + heap, "bench/round_command.py"],
                env={"MICROPYPATH": ".frozen:firmware:tests/logic", "UTH_HEAPSIZE": heap})
    assert '"where": "unix"' in out


def test_the_store_flash_bench_runs_on_the_unix_port(micropython):
    out = bench([micropython, "-X", "heapsize=4M", "bench/store_flash.py", "3"],
                env={"MICROPYPATH": "firmware:tests/logic"})
    assert "3 signed rounds" in out and "meter record" in out


def test_the_program_walk_bench_runs_on_the_unix_port(micropython):
    out = bench([micropython, "-X", "heapsize=4M", "bench/program_walk.py"],
                env={"MICROPYPATH": "firmware:tests/logic"})
    assert "esp32's mount" in out and "pico's mount" in out


@pytest.mark.parametrize("driver", EMULATOR_DRIVERS)
def test_an_emulator_bench_loads_from_a_clean_checkout(driver):
    # As `python bench/DRIVER.py` starts: bench/ first on the path, then its imports.
    bench([sys.executable, "-c", "import sys; sys.path.insert(0, 'bench'); import %s" % driver])
