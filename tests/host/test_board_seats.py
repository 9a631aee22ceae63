# How many seats the host believes each board wires (uthctl/boards/seats.py):
# read from the board's own file, checked here against the wiring the file's
# header documents, and refused when it exceeds a table's seven seats.
import re
from pathlib import Path

import pytest

from uthctl.boards import seats
from uthctl.links import rig

BOARDS = Path(__file__).resolve().parents[2] / "boards"


def _documented_pico_seats():
    # The seats in the header table ("#   GP0    1   seat 1 bet sensor ...").
    found = re.findall(r"#\s+GP\d+\s+\d+\s+seat (\d) bet sensor",
                       (BOARDS / "rp2040_pico" / "board.py").read_text())
    return len(set(found))


def _documented_sim_seats():
    # The header's "inputs bet1..N".
    text = (BOARDS / "sim" / "board.py").read_text()
    return int(re.search(r"inputs bet1\.\.(\d)", text).group(1))


def test_each_board_wires_what_its_file_documents():
    assert seats.pico_seats() == _documented_pico_seats() == 6
    assert seats.sim_seats() == _documented_sim_seats() == 6


def _pico_file(tmp_path, bets, lights, jackpots):
    path = tmp_path / "board.py"
    path.write_text("_GP_BET = %r\n_GP_BET_LIGHT = %r\n_GP_JACKPOT_LIGHT = %r\n"
                    % (tuple(bets), tuple(lights), tuple(jackpots)))
    return path


def test_a_pico_map_with_more_seats_than_a_table_or_uneven_seats_is_refused(tmp_path):
    eight = range(8)
    with pytest.raises(ValueError, match="wires 8 seats; a table has 1 to 7"):
        seats.pico_seats(_pico_file(tmp_path, eight, eight, eight))
    with pytest.raises(ValueError, match="differ in length"):
        seats.pico_seats(_pico_file(tmp_path, range(6), range(6), range(5)))
    assert seats.pico_seats(_pico_file(tmp_path, range(7), range(7), range(7))) == 7


def test_a_sim_board_without_its_count_or_with_too_many_is_refused(tmp_path):
    path = tmp_path / "board.py"
    path.write_text("from micropython import const\n\nSEATS = const(8)\n")
    with pytest.raises(ValueError, match="wires 8 seats"):
        seats.sim_seats(path)
    path.write_text("SEAT_COUNT = 6\n")
    with pytest.raises(ValueError, match="names no SEATS"):
        seats.sim_seats(path)
    path.write_text("SEATS = const(4)\n")
    assert seats.sim_seats(path) == 4


def test_the_rig_client_takes_any_seat_of_a_table():
    # A board refuses a seat it does not wire by its pin (test_vboard: chip 7).
    assert rig._seat(7) == 7 and rig._seat("1") == 1
    for seat in (0, 8):
        with pytest.raises(ValueError, match="seat must be 1 to 7"):
            rig._seat(seat)
