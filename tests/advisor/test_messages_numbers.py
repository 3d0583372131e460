"""wording.messages.number writes what Django's number_format writes for the rounded value, in
every language the site speaks: the separators read once per language change nothing."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import translation
from django.utils.formats import number_format
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.conftest import examples
from wording import messages

LANGUAGES = [code for code, _name in settings.LANGUAGES]
values = st.one_of(
    st.decimals(min_value=-(10**12), max_value=10**12, allow_nan=False, allow_infinity=False),
    st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False),
    st.integers(-(10**12), 10**12).map(Decimal),
    st.sampled_from([Decimal("-0.004"), Decimal("-0"), 0.0, -0.0, Decimal("0.005"), 1.005]),
)


def django_number(value: float | Decimal, places: int) -> str:
    exact = value if isinstance(value, Decimal) else Decimal(repr(float(value)))
    rounded = exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return number_format(rounded, decimal_pos=places, force_grouping=True)


@pytest.mark.parametrize("language", LANGUAGES)
@hypothesis_settings(max_examples=examples(300), deadline=None)
@given(value=values, places=st.integers(0, 7))
def test_number_is_number_format_of_the_rounded_value(language, value, places):
    with translation.override(language):
        assert messages.number(value, places) == django_number(value, places)


@pytest.mark.parametrize(
    ("value", "places", "expected"),
    [(Decimal("1234567.891"), 2, "1 234 567,89"), (Decimal("-0.001"), 2, "0,00"), (12, 0, "12")],
)
def test_other_separators_are_the_locales(value, places, expected):
    """Under a locale with other separators the fast path writes them, and forgets the old ones
    when the formats change."""
    with translation.override("en"):
        messages.number(1, 0)  # the English separators read
        # THOUSAND_SEPARATOR is overridden too, so that Django reads its formats again.
        other = ["tests.advisor.other_formats"]
        with override_settings(FORMAT_MODULE_PATH=other, THOUSAND_SEPARATOR=" "):
            assert messages.number(value, places) == expected
            assert messages.number(value, places) == django_number(value, places)
        assert messages.number(Decimal("1234.5"), 1) == "1,234.5"


@pytest.mark.parametrize("language", LANGUAGES)
@hypothesis_settings(max_examples=examples(300), deadline=None)
@given(
    value=st.one_of(
        # Below 1e-6 floatformat returns the float's repr ("5e-324"): no figure a chart draws.
        st.floats(min_value=-1e9, max_value=1e9).filter(lambda x: x == 0 or abs(x) >= 1e-6),
        st.integers(-(10**6), 10**6).map(float),
        st.sampled_from([0.0, -0.0, 0.05, 0.95, 719.95, 1234.5, -0.04]),
    ),
    places=st.integers(-3, -1),
)
def test_a_charts_number_with_decimals_only_if_it_has_some_is_floatformats(language, value, places):
    """charts.number_text for places < 0 writes what Django's floatformat writes with grouping
    ("-1g"): a whole number without decimals, any other rounded half up to -places decimals."""
    from django.template.defaultfilters import floatformat

    from advisor import charts

    with translation.override(language):
        assert charts.number_text(value, places) == str(floatformat(value, f"{places}g"))
