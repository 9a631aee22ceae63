# Everything starts from `make setup`: a .venv with pinned tools, so a fresh
# machine with python3, make and git needs nothing else.
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The firmware's host runtime: the 32-bit unix port (tools/unix_port.py); each logic
# test module picks its own heap, its smallest board's (tests/mp_each.py).
MICROPYTHON := $(BIN)/micropython
# sim: the virtual board's build, to deploy onto a bare one (uthctl sim --bare);
# rig_pico: the test rig's own firmware (boards/rig_pico), none of the controller's.
BOARDS := rp2040_pico:armv6m esp32_devkitc:xtensawin sim:x86 rig_pico:armv6m
BUILD ?= build
# The emulated Pico's runner (host side): rp2040js from its lock file.
PICO_EMU := host_tools/pico_emu
PICO_STAMP := $(PICO_EMU)/node_modules/.installed

.PHONY: setup unix-port soak-heap check test test-cpython test-micropython test-pico test-esp32 test-long test-floor floor-demo test-hil lint build deploy bench bench-floor clean sim soak image test-image

# The Debian packages the Pico image needs, named in one line when missing.
IMAGE_PACKAGES := cmake gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib g++
setup: $(STAMP) $(PICO_STAMP) unix-port
	@missing=""; for tool in cmake arm-none-eabi-gcc g++; do \
		command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	[ -z "$$missing" ] || echo "make setup: no$$missing for make image: apt-get install -y $(IMAGE_PACKAGES)"
	@$(BIN)/python -m uthctl.boards.esp32_flash --check

# MicroPython v1.28.0's unix port as a 32-bit program, from ../shared/firmware-sources
# (1-4 minutes once; cached by content under build/unix-port, so later runs build nothing).
unix-port: $(STAMP)
	@$(BIN)/python tools/unix_port.py $(BIN)/micropython >/dev/null

$(STAMP): pyproject.toml requirements-dev.txt
	python3 -m venv $(VENV)
	@echo "make setup: installing the pinned packages into $(VENV) (once: about 1.5 minutes on a loaded 2-core machine, silent until done)"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -e .
	touch $(STAMP)
	@echo "make setup: uthctl is $(BIN)/uthctl; '. $(BIN)/activate' puts it on your shell's path"

# Without node 18 or later the emulated Pico is left out, saying so; the rest
# of the setup goes on and its tests skip with that reason.
$(PICO_STAMP): $(PICO_EMU)/package.json $(PICO_EMU)/package-lock.json
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && \
		node -e 'process.exit(+process.versions.node.split(".")[0] < 18 ? 1 : 0)'; then \
		cd $(PICO_EMU) && npm ci --no-audit --no-fund --loglevel=error && \
		touch node_modules/.installed; \
	else \
		echo "make setup: no emulated Pico: install Node.js 18 or later with npm (nodejs.org or the nodejs package), then make setup"; \
	fi

# ruff, then in three lanes side by side (tools/side_by_side.py): the
# emulated Pico's board tests, which wait on a chip that keeps the wall
# clock's pace; the other board and logic tests (pytest less tests/floor);
# and the floor's tests and every benchmark at its smallest (tests/bench, about
# a minute) then every logic module on the unix port, two at a
# time (the other lanes end first, and one module a time left a core idle
# at the end). The same suites as test-cpython and test-micropython, which
# run them one after the other. Each pytest lane has a --basetemp of its
# own, and each names its slowest tests at the end.
LANE_PYTEST := $(BIN)/python -m pytest -p no:cacheprovider --durations=15
test: lint image unix-port
	$(BIN)/python tools/side_by_side.py \
		--lane "$(LANE_PYTEST) --basetemp=$(BUILD)/pytest-pico --target both \
		        -m '($(CPYTHON_MARKS)) and pico' --ignore=tests/floor --ignore=tests/bench" \
		--lane "$(LANE_PYTEST) --basetemp=$(BUILD)/pytest-board --target both \
		        -m '($(CPYTHON_MARKS)) and not pico' --ignore=tests/floor --ignore=tests/bench" \
		--lane "$(LANE_PYTEST) --basetemp=$(BUILD)/pytest-floor \
		        -m '$(CPYTHON_MARKS)' tests/floor tests/bench" \
		       "env UTH_JOBS=2 $(BIN)/python tests/mp_each.py $(MICROPYTHON)"

# The project's own firmware image, the controller frozen in (docs/boards.md):
# build/images/$(BOARD)/firmware.uf2 and its .sha256 from ../shared/firmware-sources,
# cached by the hash of all that goes into it.
image: setup
	$(BIN)/python tools/build_image.py --board $(BOARD)

# The image built again in another folder, from a copy of this checkout: the same SHA-256.
test-image: image
	$(BIN)/python -m pytest -m image_build tests/image

# The edit-test loop, about a minute: ruff, then the logic tests on CPython and
# on the unix port, less the slow modules (tests/slow_logic.py); no board boots.
check: lint
	$(BIN)/python -m pytest tests/logic -m "not slow"
	$(BIN)/python tests/mp_each.py --quick $(MICROPYTHON)

# The board scenarios run on both targets (tests/host/conftest.py): all of
# them on the virtual board, the pico_quick ones on the emulated Pico (which
# skip, saying why, where node or the image is missing).
CPYTHON_MARKS := (not pico or pico_quick) and not esp32 and not long_run and not image_build
test-cpython: setup image
	$(BIN)/python -m pytest --target both -m "$(CPYTHON_MARKS)"

# The long virtual-board runs `make test` leaves out (minutes).
test-long: setup
	$(BIN)/python -m pytest -m long_run tests/host

# The floor's long soak: virtual boards with their bridges on a real
# Mosquitto, broker, bridges and boards killed at random moments (about an
# hour at 50,000 rounds; -s shows its progress line each minute).
test-floor: setup
	$(BIN)/python -m pytest -s -m long_run tests/floor

# Mosquitto, four virtual boards with their bridges, the floor service and
# its page on loopback (docs/floor-setup.md, "The demo"); Ctrl-C ends it.
floor-demo: setup
	PYTHONPATH=tools $(BIN)/python -m floor_demo

# Every test that runs on the emulated Pico: each board scenario, the
# emulator's own tests, the power-cut proof at every flash operation, and the
# flash wear measured over 1,000 rounds on the real image (minutes).
test-pico: setup image
	UTH_PICO_FULL=1 $(BIN)/python -m pytest --target pico -m pico tests/host tests/hil
	$(BIN)/python -m pytest -m pico_slow tests/host/test_pico_flash_wear.py

# Every test that runs on the emulated ESP32 (QEMU, ../shared/esp32-emulator): the
# official image mounting the host-made littlefs, the heap census on the WROOM's and
# the WROVER's images, the power-cut proof on its flash (UTH_ESP32_CUT_BUDGET=N cuts,
# UTH_ESP32_CUT_FULL=1 every one) and the board scenarios (--target esp32); one QEMU at
# a time in each of two lanes (it takes a core). Slow: its flash is (docs/boards.md,
# "The emulated ESP32"). The first lane's files are the longest; the second runs the rest,
# so a new esp32 test lands there without being named here.
UTH_ESP32_CUT_BUDGET ?= 6
ESP32_LANE := tests/host/test_esp32_power_cut.py tests/host/test_board_commands.py \
	tests/host/test_authenticate.py tests/host/test_esp32_census.py
ESP32_PYTEST := $(BIN)/python -m pytest --target esp32 -m esp32 --durations=25
test-esp32: setup
	UTH_ESP32_CUT_BUDGET=$(UTH_ESP32_CUT_BUDGET) $(BIN)/python tools/side_by_side.py \
		--logs $(BUILD)/lanes-esp32 \
		--lane "$(ESP32_PYTEST) $(ESP32_LANE)" \
		--lane "$(ESP32_PYTEST) tests/host $(addprefix --ignore=,$(ESP32_LANE))"

# The scenario suite on a test bench (tests/hil, docs/testing.md "The scenario suite on
# real hardware"): a controller on PORT and a rig Pico on RIG, or without them
# the emulated pair (two emulated Picos wired pin to pin) standing in.
test-hil: setup image
ifdef RIG
	$(BIN)/python -m pytest tests/hil --target real --port $(PORT) --rig $(RIG)
else
	$(BIN)/python -m pytest tests/hil --target pair
endif

# The same logic tests on the firmware's own interpreter, each module in a
# process of its own with a board-sized heap.
test-micropython: setup
	$(BIN)/python tests/mp_each.py $(MICROPYTHON)

lint: setup
	$(BIN)/ruff check firmware boards host_tools tests bench tools

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

bench: setup image
	$(BIN)/python bench/run.py

# The floor's intake in records a second on SQLite and PostgreSQL, empty and with
# 1,000,000 genuine records stored (docs/floor-design.md, "The floor's cost and limits");
# several minutes, most of them making and storing the million records.
bench-floor: setup
	$(BIN)/python bench/floor_intake.py --before

# The soak: random rounds through the rig, the host's record reconciled with the
# meters after every hit, the log exported as it goes and audited from record 1;
# on the virtual board (its clock 30 times the host's), then on the emulated Pico
# (SOAK_PICO_ROUNDS=0 leaves it out). Figures and logs go to $(SOAK_OUT)/<board>/.
SOAK_ROUNDS ?= 100000
SOAK_PICO_ROUNDS ?= 200
SOAK_OUT ?= $(BUILD)/soak
soak: build
	$(BIN)/uthctl soak --board sim --rounds $(SOAK_ROUNDS) --out $(SOAK_OUT)/sim
	@if [ "$(SOAK_PICO_ROUNDS)" -gt 0 ]; then \
		$(BIN)/uthctl soak --board rp2040_pico --deploy $(BUILD)/rp2040_pico \
			--rounds $(SOAK_PICO_ROUNDS) --out $(SOAK_OUT)/rp2040_pico; \
	fi

# The heap soak: the controller driven in-process on the 32-bit unix port at each
# supported board's heap (bench/soak_heap.py), a table and heap.png in
# $(BUILD)/soak-heap; SOAK_HEAP_BOARDS=esp32_wroom for the module without PSRAM.
SOAK_HEAP_BOARDS ?=
soak-heap: setup
	$(BIN)/python bench/soak_heap.py --rounds $(SOAK_ROUNDS) --out $(BUILD)/soak-heap $(SOAK_HEAP_BOARDS)

# The virtual table in this terminal (SIM_ARGS="--flash FILE" for another flash
# image); BOARD=rp2040_pico for the emulated Pico (BOARD=sim: the virtual board).
# The emulated Pico runs the project's image: built first (once; cached by its key).
# BOARD=esp32_devkitc: the emulated ESP32 (QEMU, ../shared/esp32-emulator), its flash
# file made with the .mpy build on first use (docs/boards.md, "The emulated ESP32").
# BOARD's own default (rp2040_pico, make deploy's) is not make sim's: plain
# `make sim` is the virtual board and builds no image.
SIM_BOARD := $(if $(filter command line environment,$(origin BOARD)),$(BOARD))
sim: setup $(if $(filter rp2040_pico,$(SIM_BOARD)),image)
	$(BIN)/uthctl sim $(if $(SIM_BOARD),--board $(SIM_BOARD)) $(SIM_ARGS)

clean:
	rm -rf build .pytest_cache .ruff_cache
