# mk/coll.mk: the collective algorithms (mpi/coll/) and their pLogP model.
# The library sources are picked up by the top Makefile (LIB_DIRS has
# mpi/coll). Here: regenerating the built-in parameters and the test suite.
#   make plogp-defaults   rebuild mpi/coll/plogp_defaults.c from mpi/coll/params/*.plogp
#   make test-coll        run tests/suites/coll.sh (needs `make all`)

mpi/coll/plogp_defaults.c: $(wildcard mpi/coll/params/*.plogp) scripts/gen_plogp_defaults.sh
	scripts/gen_plogp_defaults.sh $@

.PHONY: plogp-defaults test-coll
plogp-defaults:
	scripts/gen_plogp_defaults.sh

test-coll: all
	bash tests/suites/coll.sh
