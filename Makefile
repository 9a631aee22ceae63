# Everything starts from `make setup`: a .venv with pinned tools, so a fresh
# machine with python3, make and git needs nothing else.
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MICROPYTHON := $(BIN)/micropython -X heapsize=192K
# sim: the virtual board's build, to deploy onto a bare one (uthctl sim --bare).
BOARDS := rp2040_pico:armv6m esp32_devkitc:xtensawin sim:x64
BUILD ?= build

.PHONY: setup test test-cpython test-micropython lint build deploy bench clean sim

setup: $(STAMP)

$(STAMP): pyproject.toml requirements-dev.txt
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -e .
	touch $(STAMP)

test: lint test-cpython test-micropython

test-cpython: setup
	$(BIN)/python -m pytest

# The same logic tests on the firmware's own interpreter, each module in a
# process of its own with a board-sized heap.
test-micropython: setup
	$(BIN)/python tests/mp_each.py $(MICROPYTHON)

lint: setup
	$(BIN)/ruff check firmware boards host_tools tests bench

# Precompiled firmware per board: $(BUILD)/<board>/lib/**.mpy, lib/board.mpy, main.py.
build: setup
	$(BIN)/python tools/build_mpy.py --out $(BUILD) $(BOARDS)

# Copies a board's build with mpremote: make deploy BOARD=rp2040_pico PORT=/dev/ttyACM0,
# then resets the board as a power cycle would, so main.py starts the controller (a
# soft reset from mpremote's raw REPL does not run main.py).
BOARD ?= rp2040_pico
PORT ?= auto
BOARD_NAMES := $(foreach board,$(BOARDS),$(firstword $(subst :, ,$(board))))
# An unknown BOARD stops make before anything is built or copied.
ifneq ($(filter deploy,$(MAKECMDGOALS)),)
ifneq ($(words $(BOARD)) $(filter $(BOARD),$(BOARD_NAMES)),1 $(BOARD))
$(error make deploy: unknown BOARD=$(BOARD); the known boards are $(BOARD_NAMES))
endif
endif
deploy: build
	$(BIN)/mpremote connect $(PORT) cp -r $(BUILD)/$(BOARD)/lib : + \
		cp $(BUILD)/$(BOARD)/main.py :main.py + reset

bench: setup
	$(BIN)/python bench/run.py

# The virtual table in this terminal (SIM_ARGS="--flash FILE" for another flash image).
sim: setup
	$(BIN)/uthctl sim $(SIM_ARGS)

clean:
	rm -rf build .pytest_cache .ruff_cache
