# The scenario suite on a test bench (bench.py): each test takes `bench`,
# parametrized by --target (tests/conftest.py):
#   sim, pico, both  the virtual board, the emulated Pico, or each
#   real             a controller on --port and a rig Pico on --rig, wired as
#                    docs/boards.md's table "The rig Pico" shows
#   pair             two emulated Picos wired pin to pin (tests/host/pico_pair.py),
#                    each on its own pty: `real`'s code path, with no hardware
# Every bench but the virtual board is marked `pico` and `slow`, so that
# `make test` runs the suite on the virtual board alone.
import contextlib
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))  # shared helpers

import bench as benches  # noqa: E402

TARGETS = {"both": ("sim", "pico")}
PAIR_STRETCH = 10.0  # two emulators and the bridge's polling on a 2-core host
PAIR_PRESS_MS = 600  # crosses the bridge whole: its poll can take 100s of ms on a loaded host


def chosen(config):
    target = config.getoption("target")
    return TARGETS.get(target, (target,))


def pytest_generate_tests(metafunc):
    if "bench" in metafunc.fixturenames:
        metafunc.parametrize("bench", chosen(metafunc.config), indirect=True)


def pytest_collection_modifyitems(config, items):
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or "bench" not in callspec.params:
            continue
        item.add_marker(pytest.mark.board)
        if callspec.params["bench"] != "sim":
            item.add_marker(pytest.mark.pico)
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def bench(request, tmp_path):
    kind = request.param
    if kind == "sim":
        request.getfixturevalue("micropython")
        made = benches.SimBench(tmp_path)
    elif kind == "pico":
        _need_the_image()
        made = benches.PicoBench(tmp_path, request.getfixturevalue("pico_images"))
    elif kind == "real":
        made = request.getfixturevalue("real_bench")
    else:
        made = request.getfixturevalue("pair_bench")
    yield made
    if kind in ("sim", "pico"):
        made.finish()
    else:
        made.close()
    assert made.trouble() is None, made.trouble()


@pytest.fixture(scope="session")
def real_bench(request):
    port, rig = request.config.getoption("port"), request.config.getoption("rig")
    if not (port and rig):
        pytest.fail("--target real needs --port (the controller) and --rig (the rig Pico)",
                    pytrace=False)
    made = benches.RealBench(port, rig)
    yield made
    made.finish()


@pytest.fixture(scope="session")
def pair_bench(tmp_path_factory, pico_images):
    _need_the_image()
    from pico_pair import PinBridge
    from rig_pico_target import BOOT_WAIT, deploy_rig, rig_board

    from uthctl.boards.pico import PicoBoard

    folder = tmp_path_factory.mktemp("pair")
    rig_flash, controller_flash = folder / "rig.img", folder / "controller.img"
    with rig_board(rig_flash) as board:
        assert board.wait_started(BOOT_WAIT)["state"] == "repl"  # a bare image
        deploy_rig(board)
    shutil.copyfile(pico_images.image(None), controller_flash)
    with contextlib.ExitStack() as stack:
        rig_pico = stack.enter_context(rig_board(rig_flash))
        controller = stack.enter_context(PicoBoard(flash=controller_flash))
        bridge = stack.enter_context(PinBridge(rig_pico, controller))
        controller.wait_started(BOOT_WAIT)
        made = benches.RealBench(controller.serial_path, rig_pico.serial_path,
                                 stretch=PAIR_STRETCH, press_ms=PAIR_PRESS_MS)
        made.name, made.bridge = "pair", bridge
        yield made
        made.finish()


def _need_the_image():
    from uthctl.boards import pico_image

    why_not = pico_image.unavailable()
    if why_not is not None:
        pytest.skip("emulated Pico: %s" % why_not)
