"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

from hypothesis import given, settings
from dispo_rl._checks import check_array

from papershelf_harness.strategies import non_numeric
from papershelf_harness.testing import assert_rejects


@settings(max_examples=25, deadline=None)
@given(value=non_numeric())
def test_non_numeric_is_a_type_error(value):
    # replace with the package's public functions, one test per argument kind
    assert_rejects(TypeError, "x", check_array, value, "x")
