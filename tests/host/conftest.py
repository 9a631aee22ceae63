# Fixtures the board tests share, and the target they run on
# (--target is defined in tests/conftest.py):
#   pytest --target sim   the virtual board (the default)
#   pytest --target pico  the emulated Pico (the official rp2 image)
#   pytest --target both  each scenario on each
# A test takes the `target` fixture (targets.py) to run on the chosen ones;
# a test about one board's own machinery says so with
# @pytest.mark.target("sim") and runs only where that board is chosen.
# Every test run on the emulated Pico is marked `pico`; `pico_quick` names
# the scenarios `make test` runs there (`make test-pico` runs them all).
# Every test that drives a board is marked `board` (pyproject.toml): here,
# those taking the `target` fixture, however indirectly; a test that starts a
# board of its own (a VirtualBoard, a PicoBoard, `uthctl sim`) says so itself.
# `slow` (over about 20 s on the 2-core machine): every board test run on the
# emulated Pico, here; the others say so themselves.
import contextlib

import cli_board
import pytest
import targets


def pytest_configure(config):
    config.addinivalue_line("markers", "target(name): a test about that board only")
    config.addinivalue_line("markers", "pico_quick: a scenario `make test` runs on the Pico too")
    config.addinivalue_line("markers", "pico_full: an emulated Pico test of minutes, "
                            "`make test-pico`'s alone")


def chosen_targets(config):
    # real and pair are tests/hil's: the scenarios here need a board the host
    # runs (its flash, its boots, the display decoded off its pins).
    chosen = config.getoption("target")
    if chosen in ("real", "pair"):
        return ()
    return ("sim", "pico") if chosen == "both" else (chosen,)


def pytest_generate_tests(metafunc):
    if "target" in metafunc.fixturenames:
        chosen = chosen_targets(metafunc.config) or (metafunc.config.getoption("target"),)
        metafunc.parametrize("target", chosen, indirect=True)


def pytest_collection_modifyitems(config, items):
    chosen = chosen_targets(config)
    kept, dropped = [], []
    for item in items:
        if "target" in item.fixturenames:
            item.add_marker(pytest.mark.board)
        only = item.get_closest_marker("target")
        callspec = getattr(item, "callspec", None)
        on = callspec.params.get("target") if callspec is not None else None
        # target(name) is that board only: not its other boards' parameters either.
        if (only is not None and (only.args[0] not in chosen or on not in (None, only.args[0]))) \
                or (on is not None and on not in targets.NAMES):
            dropped.append(item)
            continue
        if on == "esp32":
            item.add_marker(pytest.mark.esp32)
            item.add_marker(pytest.mark.slow)
        on_pico = on == "pico" or \
            item.fspath.basename.startswith("test_pico_")
        if on_pico:
            item.add_marker(pytest.mark.pico)
            if item.get_closest_marker("board"):
                # 10 s to minutes each on 2 cores, and the first to need an
                # image deploys it (1.5-3 minutes).
                item.add_marker(pytest.mark.slow)
        if item.fspath.basename.startswith("test_pico_") and \
                not item.get_closest_marker("pico_full"):
            # The emulator's own tests keep their own quick/full split; a
            # test of minutes says it is `make test-pico`'s alone.
            item.add_marker(pytest.mark.pico_quick)
        kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture
def target(request):
    if request.param == "sim":
        request.getfixturevalue("micropython")
        return targets.SimTarget()
    if request.param == "esp32":
        from uthctl.boards import esp32_flash

        why_not = esp32_flash.unavailable()
        if why_not is not None:
            pytest.skip(why_not)
        return targets.Esp32Target(request.getfixturevalue("esp32_images"))
    from uthctl.boards import pico_image

    why_not = pico_image.unavailable()
    if why_not is not None:
        pytest.skip("emulated Pico: %s" % why_not)
    return targets.PicoTarget(request.getfixturevalue("pico_images"))


@pytest.fixture
def cli_table(tmp_path, target):
    # A new board on the target that the test drives with uthctl commands
    # and its rig (cli_board.py), stopped when the test ends.
    with contextlib.ExitStack() as stack:
        yield cli_board.Board(tmp_path, stack, target)


def pytest_terminal_summary(terminalreporter):
    # One line a run when the emulated Pico's tests were skipped, and why
    # (without -rs pytest would only count them).
    from uthctl.boards import pico_image

    reason = pico_image.unavailable()
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if "test_pico_" in report.nodeid or "[pico" in report.nodeid]
    if reason is not None and skipped:
        terminalreporter.write_line("emulated Pico: %d tests skipped: %s" % (len(skipped), reason))
