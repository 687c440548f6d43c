"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

from depict_seg._checks import check_array, check_int

from papershelf_harness import suite

# One case per public argument (kinds: papershelf_harness.suite); plain tests for other rules.
CASES = [
    suite.Array("check_array.x", "x", lambda v: check_array(v, "x", ndim=1), (3,), ndims=(1,)),
    suite.Int("check_int.n", "n", lambda v: check_int(v, "n", minimum=1), minimum=1),
]

globals().update(suite.bad_input_suite(CASES))
