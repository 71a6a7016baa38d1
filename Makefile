# mbmpi: plain Makefile. `make` builds the library, wrappers and tools;
# `make test` builds and runs every test; `make bench` runs the benchmarks.
CC      ?= cc
CFLAGS  ?= -O2 -g
WFLAGS  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
CPPFLAGS := -I. -Impi/include
BUILD   := build
PREFIX  := $(CURDIR)

LIB_DIRS := util transport mbcf proto mpi mpi/coll
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS))
LAUNCH_SRCS := $(wildcard transport/launch/*.c) util/log.c util/status.c
LAUNCH_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LAUNCH_SRCS))

all: lib/libmpi.a bin/mpirun bin/mpicc bin/mbmpi_info bin/mpiexec

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(CPPFLAGS) -MMD -MP -c $< -o $@

lib/libmpi.a: $(LIB_OBJS)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

bin/mpirun: $(LAUNCH_OBJS)
	@mkdir -p bin
	$(CC) $(CFLAGS) $^ -o $@

bin/mpiexec: bin/mpirun
	ln -sf mpirun $@

bin/mbmpi_info: $(BUILD)/mpi/tools/mbmpi_info.o lib/libmpi.a
	$(CC) $(CFLAGS) $< -o $@ -Llib -lmpi -lfabric -lpthread -lm

-include $(LIB_OBJS:.o=.d) $(LAUNCH_OBJS:.o=.d)

.PHONY: all clean
clean:
	rm -rf $(BUILD) lib bin/mpirun bin/mbmpi_info
