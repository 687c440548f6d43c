# natten021_model.py is a NATTEN model file (it imports `natten`): test_natten_compat.py reads and
# runs it after switching its imports; --doctest-modules must not import it as it stands.
collect_ignore = ["natten021_model.py"]
