# What the emulated Pico needs on this host, each checked with a one-line
# reason when it is missing: node 18 or later, rp2040js installed by
# `make setup` (npm ci in host_tools/pico_emu), the RP2040 boot ROM and the
# firmware image it runs. Two images: "project", the project's own with the
# controller frozen in (`make image`, build/images/rp2040_pico/firmware.uf2,
# checked against its .sha256), the default; "official", the official
# MicroPython image that `make deploy` copies the .mpy build onto. The
# official image and the boot ROM are found through UTH_RP2_FIRMWARE /
# UTH_RP2_BOOTROM or else in ../shared/rp2040-emulator beside the repository,
# each checked against the SHA-256 pinned here.
import ast
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from table import seat_expanders

from . import REPO

RUNNER = REPO / "host_tools" / "pico_emu"
EMULATOR = RUNNER / "emulator.mjs"
SHARED = REPO.parent / "shared" / "rp2040-emulator"
FIRMWARE_NAME = "micropython-v1.28.0-RPI_PICO.uf2"
BOOTROM_NAME = "bootrom-b1.bin"
# MicroPython v1.28.0 for RPI_PICO, as micropython.org/download/RPI_PICO/ publishes it.
FIRMWARE_SHA256 = "5daa8e5fcdb37f1d81ff1a720b6c632113a5b11336564c62db7cd0005354cd87"
# The RP2040 B1 boot ROM (16 KiB), as rp2040js's own demo loads it.
BOOTROM_SHA256 = "90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae"
NODE_MAJOR = 18
PROJECT, OFFICIAL = "project", "official"
IMAGES = (PROJECT, OFFICIAL)
PROJECT_IMAGE = REPO / "build" / "images" / "rp2040_pico" / "firmware.uf2"
PIN_FILE = REPO / "boards" / "rp2040_pico" / "board.py"
_READ = ("_GP_", "_SPI_BUS", "_I2C_BUS", "_EXPANDERS", "_SEATS", "_DOOR")


class PicoUnavailable(OSError):
    # The emulated Pico cannot run here; the message is one line saying why.
    pass


def firmware_path():
    return Path(os.environ.get("UTH_RP2_FIRMWARE") or SHARED / FIRMWARE_NAME)


def bootrom_path():
    return Path(os.environ.get("UTH_RP2_BOOTROM") or SHARED / BOOTROM_NAME)


def find_node():
    # The node binary, or PicoUnavailable naming what to install.
    node = shutil.which("node")
    if node is None:
        raise PicoUnavailable("no node on PATH: install Node.js %d or later (nodejs.org, or "
                              "the nodejs package) and run `make setup`" % NODE_MAJOR)
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True,
                                 timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as error:
        raise PicoUnavailable("node does not run (%s): install Node.js %d or later"
                              % (error, NODE_MAJOR)) from None
    major = re.match(r"v(\d+)\.", version)
    if not major or int(major.group(1)) < NODE_MAJOR:
        raise PicoUnavailable("node %s is too old: install Node.js %d or later"
                              % (version or "(unknown)", NODE_MAJOR))
    if not (RUNNER / "node_modules" / "rp2040js" / "package.json").is_file():
        raise PicoUnavailable("rp2040js is not installed: run `make setup` (npm ci in %s)"
                              % RUNNER)
    return node


def _checked(path, digest, what, variable):
    if not path.is_file():
        raise PicoUnavailable("no %s at %s: set %s, or put ../shared/rp2040-emulator beside "
                              "the repository (see README, The emulated Pico)"
                              % (what, path, variable))
    found = hashlib.sha256(path.read_bytes()).hexdigest()
    if found != digest:
        raise PicoUnavailable("%s %s has SHA-256 %s, not the pinned %s"
                              % (what, path, found, digest))
    return path


def official_firmware():
    return _checked(firmware_path(), FIRMWARE_SHA256, "MicroPython RPI_PICO image",
                    "UTH_RP2_FIRMWARE")


def project_image_path():
    return Path(os.environ.get("UTH_PICO_IMAGE") or PROJECT_IMAGE)


def project_firmware():
    # The project's image as `make image` left it, whole: its bytes match its .sha256.
    path = project_image_path()
    sums = path.with_name(path.name + ".sha256")
    if not path.is_file() or not sums.is_file():
        raise PicoUnavailable("no project image at %s: run `make image BOARD=rp2040_pico` "
                              "(or set UTH_PICO_IMAGE)" % path)
    expected = sums.read_text().split()[0]
    found = hashlib.sha256(path.read_bytes()).hexdigest()
    if found != expected:
        raise PicoUnavailable("project image %s has SHA-256 %s, not the %s its .sha256 says: "
                              "run `make image BOARD=rp2040_pico`" % (path, found, expected))
    return path


def firmware(image=PROJECT):
    # The UF2 file of image "project" or "official".
    if image == PROJECT:
        return project_firmware()
    if image == OFFICIAL:
        return official_firmware()
    raise ValueError("no Pico image %r (one of %s)" % (image, ", ".join(IMAGES)))


def bootrom():
    return _checked(bootrom_path(), BOOTROM_SHA256, "RP2040 boot ROM", "UTH_RP2_BOOTROM")


def unavailable(*images):
    # None when the emulated Pico can run each image here (the project's when
    # none is named), else the one-line reason.
    try:
        find_node()
        for image in images or (PROJECT,):
            firmware(image)
        bootrom()
    except PicoUnavailable as error:
        return str(error)
    return None


def gpio_map(path=PIN_FILE):
    # {"_GP_LOCK": [22], "_EXPANDERS": [32, 33], ...} from the board's own
    # module-level _GP_*, bus, expander and seat assignments, read from its
    # source, never imported.
    tree = ast.parse(Path(path).read_text(), str(path))
    pins = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id.startswith(_READ):
            pins[target.id] = [n.value for n in ast.walk(node.value)
                               if isinstance(n, ast.Constant) and type(n.value) is int]
    return pins


def wiring(path=PIN_FILE):
    # The rig's names for the Pico's signals: LOCK and the key by GPIO; each
    # seat's spots ("bet3": progressive, "uth3") and lights as (expander
    # address, pin 0..15) in the layout of table/seat_expanders.py, and the
    # compartment door's switch ("door") where the board's _DOOR names it; the
    # I2C bus, the display's chip select and SPI bus.
    pins = gpio_map(path)
    seats, addresses = pins["_SEATS"][0], pins["_EXPANDERS"]
    if len(addresses) != seat_expanders.chips_needed(seats):
        raise ValueError("%s: %d seats want %d expanders, not %d" % (
            path, seats, seat_expanders.chips_needed(seats), len(addresses)))

    def pin(seat, signal):
        chip, bit = seat_expanders.place(seat, signal)
        return (addresses[chip], bit)

    numbers = range(1, seats + 1)
    expander_inputs = {"bet%d" % n: pin(n, "bet") for n in numbers}
    expander_inputs.update({"uth%d" % n: pin(n, "uth") for n in numbers})
    if "_DOOR" in pins:
        expander_inputs["door"] = tuple(pins["_DOOR"])
    return {"inputs": {"lock": pins["_GP_LOCK"][0], "key": pins["_GP_KEY"][0]},
            "expander_inputs": expander_inputs,
            "bet_lights": [pin(n, "bet_light") for n in numbers],
            "jackpot_lights": [pin(n, "jackpot_light") for n in numbers],
            "expanders": addresses, "i2c": pins["_I2C_BUS"][0],
            "sda": pins["_GP_SDA"][0], "scl": pins["_GP_SCL"][0],
            "cs": pins["_GP_CS"][0], "spi": pins["_SPI_BUS"][0]}
