# Expiry of the temporary sections of Chapter 653b (firmware/uth/sections.py).
# The dates are typed from the source notes of the reference text: 653b.1
# effective September 4, 2021, expire September 4, 2024; 653b.2-653b.5
# effective March 23, 2024, expire March 23, 2026. The expiry day is the first
# day out of force (a two-year provision counted from a day in force).
from mystery import configs
from uth import paytables, sections


def _refused(call, *args):
    try:
        call(*args)
    except ValueError as error:
        return str(error)
    raise AssertionError("not refused: %r" % (args,))


def test_each_section_carries_its_source_note_dates():
    assert sections.dates("653b.1") == ("2021-09-04", "2024-09-04")
    for section in ("653b.2", "653b.3", "653b.4", "653b.5"):
        assert sections.dates(section) == ("2024-03-23", "2026-03-23")
    assert sections.SECTIONS == ("653b.1", "653b.2", "653b.3", "653b.4", "653b.5")


def test_a_subsection_takes_its_sections_dates():
    assert sections.dates("653b.1(c)(4)") == ("2021-09-04", "2024-09-04")
    assert sections.dates("653b.5(f)") == ("2024-03-23", "2026-03-23")


def test_653a_has_no_dates_and_never_expires():
    assert sections.dates("653a.12(c)") == (None, None)
    assert not sections.expired("653a.12(b)", "2099-12-31")


def test_653b1_before_on_and_after_its_expiry_day():
    assert not sections.expired("653b.1", "2021-09-04")  # its first day
    assert not sections.expired("653b.1", "2024-09-03")  # its last day in force
    assert sections.expired("653b.1", "2024-09-04")  # the expiry day: out of force
    assert sections.expired("653b.1(c)(4)", "2024-09-05")
    assert sections.expired("653b.1", "2026-11-30")


def test_653b2_to_5_before_on_and_after_their_expiry_day():
    for section in ("653b.2(b)", "653b.3(b)", "653b.4(f)", "653b.5(f)"):
        assert not sections.expired(section, "2026-03-22")
        assert sections.expired(section, "2026-03-23")
        assert sections.expired(section, "2026-03-24")
    # Between the two expiries only 653b.1 has lapsed.
    assert sections.lapsed(sections.SECTIONS, "2025-01-01") == ["653b.1"]


def test_lapsed_names_each_section_once_in_order():
    cites = ("653b.5(f)", "653a.12(c)", "653b.1(c)(4)", "653b.5(f)", "653b.2(b)")
    assert sections.lapsed(cites, "2026-03-23") == ["653b.5", "653b.1", "653b.2"]
    assert sections.lapsed(cites, "2024-09-03") == []


def test_the_warning_names_sections_dates_and_the_day():
    assert sections.warning(("653b.1",), "2024-09-03") is None
    text = sections.warning(("653b.1(c)(4)", "653b.2(b)"), "2026-03-23")
    assert "653b.1 expired 2024-09-04" in text and "653b.2 expired 2026-03-23" in text
    assert "as of 2026-03-23" in text and "extended or adopted" in text
    text = sections.warning(("653b.1", "653b.2"), "2025-06-01")
    assert "653b.1 expired" in text and "653b.2" not in text


def test_bad_dates_and_sections_are_refused():
    for bad in ("2024-9-4", "2024/09/04", "20240904xx", "2024-13-01", "2024-00-10",
                "2024-01-32", "", None, 20240904, "\u0662\u0660\u0662\u0664-09-04"):
        assert "YYYY-MM-DD" in _refused(sections.expired, "653b.1", bad)
    assert "653b.9" in _refused(sections.dates, "653b.9")
    assert "known: 653b.1" in _refused(sections.expired, "653b.7(a)", "2024-01-01")
    assert "section" in _refused(sections.dates, None)


def test_a_clock_before_any_section_took_effect_is_unset():
    assert sections.clock_unset("2021-01-01")  # an RP2040 whose RTC was never set
    assert sections.clock_unset("2000-01-01")
    assert not sections.clock_unset("2021-09-04")
    assert not sections.clock_unset("2026-11-30")


def test_date_of_a_time_tuple():
    assert sections.date_of((2024, 9, 4, 0, 0, 0, 2, 248)) == "2024-09-04"
    assert sections.date_of((2021, 1, 1, 0, 0, 0, 4, 1, 0)) == "2021-01-01"


def test_configs_and_paytables_take_their_dates_from_the_sections():
    assert (configs.EFFECTIVE, configs.EXPIRES) == sections.dates(configs.SECTION)
    for table in paytables.all_tables():
        assert (table.effective, table.expires) == sections.dates(table.section)
