# The tests that may skip in a CI run (CI=true), each with why it cannot run
# there; any other skip fails a CI run (tests/skip_gate.py). A developer's run
# skips as before, saying so. Keys are pytest node ids, with fnmatch's * for
# the parameters. Keep this list short: a part CI can install belongs in
# .ci/run, not here.
ALLOWED = {
    "tests/host/test_pico_flash_wear.py::test_flash_outlasts_twenty_years_on_the_real_image":
        "the 1,000-round flash-wear run on the emulated Pico takes minutes: it is opt-in "
        "(-m pico_slow, make test-pico), and make test's Pico lane collects it only to skip it",
    "tests/floor/test_servers_end.py::test_a_server_started_from_a_thread_that_ended_keeps_"
    "running[postgres]":
        "starts a process as the postgres user, which needs root: a CI runner that is not "
        "root (its packages installed beforehand) cannot",
}
