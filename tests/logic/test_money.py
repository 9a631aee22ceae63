# Money as text (firmware/mystery/money.py). Expected strings are typed from
# the rule: amounts in micro-dollars (a cent is 10,000, a dollar 1,000,000);
# whole cents always, then a fraction of a cent with only its significant
# digits; thousands grouped by "," for people, not for a spreadsheet.
from mystery import money

CENT = 10_000
DOLLAR = 1_000_000


def test_whole_cents_show_two_digits():
    assert money.dollars(0) == "$0.00"
    assert money.dollars(1 * CENT) == "$0.01"
    assert money.dollars(100 * DOLLAR + 12 * CENT) == "$100.12"
    assert money.dollars(250 * DOLLAR) == "$250.00"


def test_a_fraction_of_a_cent_shows_only_its_significant_digits():
    # 1.5% of a $1 wager is 1.5 cents; 0.5% of $5 is 2.5 cents.
    assert money.dollars(15_000) == "$0.015"
    assert money.dollars(25_000) == "$0.025"
    assert money.dollars(100 * DOLLAR + 45_000) == "$100.045"
    assert money.dollars(1) == "$0.000001"
    assert money.dollars(10 * CENT + 1_230) == "$0.10123"


def test_thousands_are_grouped():
    assert money.dollars(999 * DOLLAR) == "$999.00"
    assert money.dollars(1_000 * DOLLAR) == "$1,000.00"
    assert money.dollars(1_234 * DOLLAR + 56 * CENT) == "$1,234.56"
    assert money.dollars(1_234_567 * DOLLAR) == "$1,234,567.00"
    # Past a 32-bit board's small integers: the arithmetic stays exact.
    assert money.dollars(12_345_678_901 * DOLLAR + 15_000) == "$12,345,678,901.015"


def test_a_negative_amount_puts_the_sign_before_the_dollar_sign():
    assert money.dollars(-250 * CENT) == "-$2.50"
    assert money.dollars(-15_000) == "-$0.015"
    assert money.dollars(-1_000 * DOLLAR) == "-$1,000.00"


def test_brief_drops_the_cents_of_whole_dollars_only():
    assert money.dollars_brief(5 * DOLLAR) == "$5"
    assert money.dollars_brief(1_000 * DOLLAR) == "$1,000"
    assert money.dollars_brief(0) == "$0"
    assert money.dollars_brief(-2 * DOLLAR) == "-$2"
    assert money.dollars_brief(37 * DOLLAR + 50 * CENT) == "$37.50"
    assert money.dollars_brief(15_000) == "$0.015"


def test_to_the_cent_rounds_half_a_cent_away_from_zero():
    assert money.dollars_to_cent(300 * DOLLAR) == "$300.00"
    assert money.dollars_to_cent(15_000) == "$0.02"
    assert money.dollars_to_cent(14_999) == "$0.01"
    assert money.dollars_to_cent(-15_000) == "-$0.02"
    assert money.dollars_to_cent(-4_999) == "$0.00"  # less than half a cent: no sign
    assert money.dollars_to_cent(1_234 * DOLLAR + 995_000) == "$1,235.00"


def test_decimal_is_exact_without_sign_of_dollars_or_separators():
    assert money.decimal(100 * DOLLAR + 15 * CENT) == "100.15"
    assert money.decimal(10 * CENT) == "0.10"
    assert money.decimal(15_000) == "0.015"
    assert money.decimal(1_234 * DOLLAR) == "1234.00"
    assert money.decimal(-250 * CENT) == "-2.50"


def test_cents_text_is_the_meter_reading():
    assert money.cents_text(0) == "0.00"
    assert money.cents_text(7) == "0.07"
    assert money.cents_text(10_012) == "100.12"
    assert money.cents_text(99_999_999) == "999999.99"
