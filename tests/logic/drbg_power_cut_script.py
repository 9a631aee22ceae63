# The power-cut proof of the generator's state (docs/mystery.md, "The
# generator"). test_power_cut.py runs this file as a process of its own with
# the board's heap, as it runs power_cut_script.py:
#   MICROPYPATH=firmware:tests/logic micropython -X heapsize=$UTH_HEAPSIZE \
#       tests/logic/drbg_power_cut_script.py BOARD
# A short day of a board seeded in service mode (DAY below) on littlefs over
# a RAM flash device (ramflash.py), the power cut at every flash operation
# of every step in each of three ways (the operation lost, half done, done),
# and at every flash operation of the boot after one cut draw; then a reboot
# on what survived. After each:
# - the state is never lost: once a seeding has committed, every reboot has
#   a state, and it is the state before the step or after it, moved on once
#   by each boot that landed (store.py), never anything else;
# - it goes with its draw: the meter is as before the step exactly when the
#   state is, so a draw and the state it leaves commit together;
# - no output repeats: play goes on to the day's end, and no output of 16
#   bytes or more (a salt) the generator gave in the board's whole life,
#   cut draws included, is given twice.
# The board's source is stuck (one byte pattern for ever) and the inputs'
# timing constant, the worst a board could gather: what keeps a draw cut by
# a power cut from being drawn again is then the state alone.
# MicroPython only (littlefs and the viper device are the unix port's).
import sys

if sys.implementation.name == "micropython" and __name__ == "__main__":
    import gc
    import os

    import tmpdir
    from mystery import chain, drbg, entropy
    from mystery.bonus import MysteryBonus
    from mystery.meter import Refused
    from mystery.record import to_record
    from mystery.store import Store
    from ramflash import BOARD_MOUNTS, DONE, HALF, LOST, MODES, FileChip, RamFlash

    MOUNT = "/flash"
    BLOCK_SIZE = 4096
    # Enough for the store with a few blocks to spare, and a reserve (store.py)
    # that fits, as power_cut_script.py's: the reserve is proven elsewhere.
    BLOCKS = 18
    RESERVE_BLOCKS = 2
    BOARD = sys.argv[1] if len(sys.argv) > 1 else "esp32"
    MOUNT_KEYWORDS = BOARD_MOUNTS[BOARD]
    HEAP = sys.argv[2] if len(sys.argv) > 2 else "(not given)"

    DAY = (
        ("configure", "A1"),
        ("reset",),  # from the board's source: not seeded yet
        ("seed", "c3" * 32),  # instantiated
        ("configure", "A2"),  # closes the untouched cycle
        ("reset",),  # the generator's first draw
        ("seed", "5a" * 64),  # reseeded with the host's randomness
        ("configure", "A1"),
        ("reset",),
    )
    FIRST_SEED = 2
    CUT_DRAW = 4  # the step whose cut draw the boot after is cut in as well

    def stuck(n):
        return (b"\x27\x0f" * n)[:n]

    entropy.ticks_us = lambda: 0  # every input's timing the same

    # Every output of 16 bytes or more the generator gives while `recording`
    # (the health check's known answer, the same at every boot, is not).
    outputs = []
    recording = [True]
    _generate = drbg.HmacDrbg.generate
    _health_check = drbg.health_check

    def _recorded_generate(self, count, additional=b""):
        out = _generate(self, count, additional)
        if recording[0] and count >= 16:
            outputs.append(out)
        return out

    def _unrecorded_health_check():
        recording[0] = False
        try:
            return _health_check()
        finally:
            recording[0] = True

    drbg.HmacDrbg.generate = _recorded_generate
    drbg.health_check = _unrecorded_health_check

    def apply(bonus, op):
        if op[0] == "configure":
            return bonus.configure(op[1])
        if op[0] == "reset":
            return bonus.reset()
        return bonus.seed(op[1])

    # ---- the flash ----

    FLASH_DIR = tmpdir.make()
    CHIP = FileChip(FLASH_DIR + "/chip.bin", BLOCKS, BLOCK_SIZE)
    os.VfsLfs2.mkfs(RamFlash(CHIP), **MOUNT_KEYWORDS)
    FORMATTED = [(i, bytes(block)) for i, block in enumerate(CHIP)
                 if bytes(block) != b"\xff" * BLOCK_SIZE]

    def _new_chip():
        CHIP.erase_all()
        for i, content in FORMATTED:
            CHIP.write(i, content)

    def _mount(cut_at=-1, mode=DONE):
        device = RamFlash(CHIP, cut_at, mode)
        os.mount(os.VfsLfs2(device, **MOUNT_KEYWORDS), MOUNT)
        return device

    def _boot():
        bonus = MysteryBonus(Store(MOUNT, reserve_blocks=RESERVE_BLOCKS), stuck)
        bonus.boot()
        return bonus

    def _meter(bonus):
        # The meter and the log's head (a seeding moves no meter, only the log).
        return chain.canonical(to_record(bonus.meter)) + bonus.store.head_hash

    def _state(bonus):
        found = bonus.store.drbg
        return None if found is None else found.to_record()

    def _moved_on(record, boots):
        # The state after `boots` boots that landed (store.py, _advance_drbg).
        if record is None:
            return None
        state = drbg.from_record(record)
        for _ in range(boots):
            _generate(state, 0, b"boot")
        return state.to_record()

    # ---- the reference run ----

    def _reference():
        # (flash operations before each step, meter and state after each;
        # [0] is the boot's).
        _new_chip()
        device = _mount()
        try:
            bonus = _boot()
            starts, meters, states = [device.ops], [_meter(bonus)], [_state(bonus)]
            for op in DAY:
                apply(bonus, op)
                starts.append(device.ops)
                meters.append(_meter(bonus))
                states.append(_state(bonus))
        finally:
            os.umount(MOUNT)
        return starts, meters, states

    STARTS, METERS, STATES = _reference()

    # ---- one cut ----

    def _cut(step, cut_at, mode, boot_cut=None):
        # The day on a new chip, the power cut at operation cut_at of `step`
        # (and, with boot_cut (operation, mode), again in the boot after);
        # then a reboot, the checks, and the rest of the day.
        del outputs[:]
        _new_chip()
        device = _mount(STARTS[step] + cut_at, mode)
        try:
            bonus = _boot()
            for earlier in range(step):
                apply(bonus, DAY[earlier])
            assert device.ops == STARTS[step] and not device.dead, "the replay differs"
            try:
                apply(bonus, DAY[step])
                raise AssertionError("the step ended before flash operation %d" % cut_at)
            except Refused:
                pass
            assert device.dead, "no cut"
        finally:
            os.umount(MOUNT)
        boots = [1, 1]  # boots that may have moved the state on: [fewest, most]
        if boot_cut is not None:
            device = _mount(boot_cut[0], boot_cut[1])
            try:
                _boot()
                assert device.dead, "no cut in the boot"
            finally:
                os.umount(MOUNT)
            boots[1] = 2
        device = _mount()
        try:
            bonus = _boot()
            ops = device.ops
            assert bonus.fault is None, bonus.fault
            found = _judge(bonus, step, boots)
            if found == "exposed":  # the closed cycle's value reached flash: redrawn first
                bonus.redraw()
            for later in range(step + (found == "after"), len(DAY)):
                apply(bonus, DAY[later])
            assert bonus.store.drbg is not None, "the state was lost"
            assert len(set(outputs)) == len(outputs), "an output was given twice"
        finally:
            os.umount(MOUNT)
        return found, ops

    def _judge(bonus, step, boots):
        # "before" or "after": the meter and the state alike, the state
        # moved on by the boots that landed. "exposed": before, the cut
        # configuration's record (which reveals the cycle it closes) having
        # landed; the boot marks the cycle exposed, and a redraw must follow.
        exposed = bonus.meter.exposed
        bonus.meter.exposed = False
        meter, state = _meter(bonus), _state(bonus)
        bonus.meter.exposed = exposed
        if step >= FIRST_SEED + 1:
            assert state is not None, "the state was lost"
        for found, index in (("before", step), ("after", step + 1)):
            if meter == METERS[index]:
                moved = [_moved_on(STATES[index], n) for n in range(boots[0], boots[1] + 1)]
                assert state in moved, "the state is not the meter's (%s the step)" % found
                assert not exposed or found == "before", "exposed after the step"
                return "exposed" if exposed else found
        raise AssertionError("the meter is neither as before the step nor as after it")

    # ---- the proof ----

    def check_power_cut_at_every_flash_operation_of_the_seeded_day():
        tally = {"before": 0, "after": 0, "exposed": 0}
        boot_ops = {}
        for step in range(len(DAY)):
            for cut_at in range(STARTS[step + 1] - STARTS[step]):
                for mode in (LOST, HALF, DONE):
                    try:
                        found, ops = _cut(step, cut_at, mode)
                    except Exception as error:  # noqa: BLE001 -- named, then raised
                        print("FAIL step %d %r, cut at %d (%s)" % (step, DAY[step][0], cut_at,
                                                                    MODES[mode]))
                        raise error
                    tally[found] += 1
                    if step == CUT_DRAW and found == "before":
                        boot_ops[(cut_at, mode)] = ops
                    gc.collect()
        assert tally["before"] and tally["after"] and tally["exposed"], tally
        # The boot after a cut draw, cut at each of its operations.
        (cut_at, mode), ops = max(boot_ops.items(), key=lambda item: item[1])
        assert ops >= 2, "the boot after a cut draw wrote nothing (%d operations)" % ops
        for at in range(ops):
            for second in (LOST, HALF, DONE):
                _cut(CUT_DRAW, cut_at, mode, (at, second))
        print("  generator power cut (%s mount): %d steps, %d cuts, reboots found the step "
              "not done %d times (%d of them a configuration's record landed, the value it "
              "revealed redrawn), done %d times; the boot after a cut draw (%d operations) "
              "cut %d times" % (BOARD, len(DAY), sum(tally.values()),
                                tally["before"] + tally["exposed"], tally["exposed"],
                                tally["after"], ops, 3 * ops))

    def _main():
        passed = failed = 0
        for check in (check_power_cut_at_every_flash_operation_of_the_seeded_day,):
            try:
                check()
                passed += 1
            except Exception as error:  # noqa: BLE001 -- counted
                failed += 1
                print("FAIL test_power_cut.%s: %s %s" % (check.__name__, type(error).__name__,
                                                         error))
                sys.print_exception(error)
        CHIP.close()
        tmpdir.remove(FLASH_DIR)
        print("  drbg_power_cut (own process, heap %s, %s mount): %d passed, %d failed"
              % (HEAP, BOARD, passed, failed))
        sys.exit(1 if failed else 0)

    _main()
