# mk/shmem.mk: mbmpi's own shared-memory transport (transport/shmem.c,
# --provider mbshm). The transport itself is built into lib/libmpi.a by the
# top Makefile; this adds its unit test (run under valgrind by `make test`,
# like every build/unit/test_*). tests/suites/shmem.sh runs the MPI manifest,
# a stress run and the cleanup check over mbshm.

$(BUILD)/unit/test_shmem: tests/unit/test_shmem.c transport/shmem.c transport/transport.h util/log.c util/status.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) tests/unit/test_shmem.c util/log.c util/status.c $(CMOCKA_LIBS) -lpthread -o $@

TEST_BUILD += $(BUILD)/unit/test_shmem

# transport/ofi.c's RMA rings (FIFO mode rma) with two endpoints over
# tcp;ofi_rxm on 127.0.0.1 in one process
$(BUILD)/unit/test_ofi_ring: tests/unit/test_ofi_ring.c tests/unit/ofi_pair.h transport/ofi.c transport/transport.h util/log.c util/status.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) tests/unit/test_ofi_ring.c util/log.c util/status.c $(CMOCKA_LIBS) -lpthread -ldl -o $@

TEST_BUILD += $(BUILD)/unit/test_ofi_ring

# transport/ofi.c over libfabric's sockets provider: the receive buffers of
# its TCP sockets (ofi_sock_rcvbuf), two endpoints in one process
$(BUILD)/unit/test_ofi_sockets: tests/unit/test_ofi_sockets.c tests/unit/ofi_pair.h transport/ofi.c transport/transport.h util/log.c util/status.c
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) tests/unit/test_ofi_sockets.c util/log.c util/status.c $(CMOCKA_LIBS) -lpthread -ldl -o $@

TEST_BUILD += $(BUILD)/unit/test_ofi_sockets
