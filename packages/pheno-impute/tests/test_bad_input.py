"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (``suite.Number``, ``OutOfRange``, ``Int``, ``Flag``,
``Array``, ``Mismatch``, ``Option``, ``Rng``; see ``papershelf_harness.suite``), and the suite
writes the hypothesis tests. ``call(value)`` feeds ``value`` as the argument ``name`` with every
other argument valid. Add a plain test for any rule the kinds do not cover.
"""

from pheno_impute._checks import check_array, check_int

from papershelf_harness import suite

# Replace these two with the package's public functions and classes, one case per argument.
CASES = [
    suite.Array("check_array.x", "x", lambda v: check_array(v, "x", ndim=1), (3,), ndims=(1,)),
    suite.Int("check_int.n", "n", lambda v: check_int(v, "n", minimum=1), minimum=1),
]

globals().update(suite.bad_input_suite(CASES))
