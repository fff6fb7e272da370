# nprocguard -- GNU Make. `make` builds, `make check` builds twice (plain and
# with ASan/UBSan), checks the floors of src/ and runs every test against
# both, `make demo` prints the seed scenarios side by side under all policies.

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DESTDIR   ?=

CC        ?= cc
CFLAGS    ?= -O2 -g
# zlib: src/guest/image.c reads a gzip-compressed kernel's ELF header
PKGS      := smartcols libcap libseccomp libbpf zlib
# What is missing, said in one line instead of a screen of pkg-config errors
# per file; the goals that install it (or need nothing) go ahead.
NPG_MISSING := $(if $(shell command -v pkg-config),$(foreach p,$(PKGS),$(if $(shell pkg-config --exists $(p) && echo y),,$(if $(filter zlib,$(p)),zlib1g-dev,lib$(p:lib%=%)-dev))),pkg-config)
ifneq ($(strip $(NPG_MISSING)),)
ifeq ($(filter deps demo check clean,$(MAKECMDGOALS)),)
$(error missing build dependencies: $(strip $(NPG_MISSING)); `make deps` installs them (as root, on Debian))
endif
endif
CPPFLAGS  += -D_GNU_SOURCE -DNPG_VERSION='"$(VERSION)"' -Isrc -Iinclude $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
WARN      := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
LDLIBS    += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread

BUILD     ?= build
ifeq ($(SAN),1)
CFLAGS    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS   += -fsanitize=address,undefined
endif

LIB_SRC   := $(sort $(wildcard src/model/*.c src/model/policy/*.c src/scenario/*.c \
               src/backend/*.c src/backend/real/*.c src/runner/*.c src/report/*.c \
               src/tools/*/*.c src/privdrop/*.c \
               src/system/*.c \
               src/guest/*.c src/explore/*.c src/compare/*.c src/export/*.c src/identify/*.c))
CLI_SRC   := $(sort $(wildcard src/cli/*.c))
UNIT_SRC  := $(sort $(wildcard tests/unit/test-*.c))

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/src/system/taskiter-obj.o $(BUILD)/src/guest/init-blob.o \
             $(BUILD)/src/export/runtime-blob.o $(BUILD)/src/identify/probes-blob.o
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
LIBA      := $(BUILD)/libnprocguard.a
BIN       := $(BUILD)/nprocguard
# The installable library: npg_drop_privileges() and the /proc readers it needs
PRIVDROP_SRC := src/privdrop/privdrop.c src/system/procfs.c
PRIVDROP_A   := $(BUILD)/libnprocguard-privdrop.a
PRIVDROP_SO  := $(BUILD)/libnprocguard-privdrop.so.0
PRIVDROP_PIC := $(PRIVDROP_SRC:%.c=$(BUILD)/pic/%.o)
# The LD_PRELOAD library, and the small programs the hardening tests audit
HARDEN_SO    := $(BUILD)/libnprocguard-harden.so
AUDIT_BIN    := $(patsubst tests/audit/%.c,$(BUILD)/tests/audit/%,$(wildcard tests/audit/*.c))

.PHONY: all check test demo install clean fuzz fuzz-build fuzz-merge conform deps kernels kselftest \
        seed-kernels floors identify-probes

all: $(BIN) $(UNIT_BIN) $(BUILD)/tests/inject $(PRIVDROP_A) $(PRIVDROP_SO) $(HARDEN_SO) $(AUDIT_BIN)

# Installs missing Debian packages when run as root (tools/ensure-deps.sh).
deps:
	@sh tools/ensure-deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The BPF task iterator of `status`: CO-RE, so built once for any kernel.
# clang's bpf target has no multiarch include path of its own.
BPF_CLANG  ?= clang
# (clang -dumpmachine says x86_64-pc-linux-gnu: ask gcc, whatever CC is)
MULTIARCH  := $(shell gcc -dumpmachine)
$(BUILD)/bpf/taskiter.bpf.o: src/system/bpf/taskiter.bpf.c src/system/taskiter-record.h
	@mkdir -p $(dir $@)
	$(BPF_CLANG) -O2 -g -target bpf -Wall -Werror -I/usr/include/$(MULTIARCH) -Isrc -c $< -o $@

$(BUILD)/src/system/taskiter-obj.o: src/system/taskiter-obj.S $(BUILD)/bpf/taskiter.bpf.o
	@mkdir -p $(dir $@)
	$(CC) -DNPG_TASKITER_OBJ='"$(BUILD)/bpf/taskiter.bpf.o"' -c $< -o $@

# The guest's /init for `conform --kernel`: static, no sanitizers (it is PID 1
# of a bare initramfs, on kernels as old as 3.0), linked in as plain bytes.
$(BUILD)/guest/init: src/guest/init/init.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -D_GNU_SOURCE -O2 -static -o $@ $<

$(BUILD)/src/guest/init-blob.o: src/guest/init-blob.S $(BUILD)/guest/init
	@mkdir -p $(dir $@)
	$(CC) -DNPG_GUEST_INIT='"$(BUILD)/guest/init"' -c $< -o $@

# The exported kselftests' runtime: every .c and .h of $(KST_DIR), written
# out as it is by `export` (linked in as plain bytes with their names,
# runtime-blob.S) and compiled here once each, so that this build's warnings
# catch it -- without -Isrc or -D_GNU_SOURCE: it is built alone in the
# exported directory. The directory is a prerequisite too: a file removed
# from it changes the list.
KST_DIR     := src/export/kselftest
KST_RUNTIME := $(sort $(wildcard $(KST_DIR)/*.c $(KST_DIR)/*.h))
KST_OBJ     := $(patsubst %.c,$(BUILD)/%.o,$(filter %.c,$(KST_RUNTIME)))
comma       := ,
KST_FILES   := $(subst " ","$(comma) ",$(patsubst %,"%",$(notdir $(KST_RUNTIME))))

$(BUILD)/$(KST_DIR)/%.o: $(KST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/src/export/runtime-blob.o: src/export/runtime-blob.S $(KST_RUNTIME) $(KST_DIR)/. $(KST_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -DNPG_KST_FILES='$(KST_FILES)' -Wa,-I$(KST_DIR) -c $< -o $@

# identify's probes (scenarios/identify/, made by `make identify-probes`),
# linked in with their names as the kselftests' runtime is: the directory a
# prerequisite too, so that a probe removed changes the table
PROBE_DIR   := scenarios/identify
PROBES      := $(sort $(wildcard $(PROBE_DIR)/*.npg))
PROBE_FILES := $(subst " ","$(comma) ",$(patsubst %,"%",$(notdir $(PROBES))))

$(BUILD)/src/identify/probes-blob.o: src/identify/probes-blob.S $(PROBES) $(PROBE_DIR)/.
	@mkdir -p $(dir $@)
	$(CC) -DNPG_PROBE_FILES='$(PROBE_FILES)' -Wa,-I$(PROBE_DIR) -c $< -o $@

$(LIBA): $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(PRIVDROP_A): $(PRIVDROP_PIC)
	$(AR) rcs $@ $^

$(PRIVDROP_SO): $(PRIVDROP_PIC) src/privdrop/privdrop.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libnprocguard-privdrop.so.0 \
	  -Wl,--version-script=src/privdrop/privdrop.map -o $@ $(PRIVDROP_PIC) -lcap

$(BIN): $(CLI_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/tap.h tests/unit/world.h $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LDLIBS)

$(HARDEN_SO): src/harden/harden.c
	$(CC) $(WARN) $(CFLAGS) $(LDFLAGS) -fPIC -shared -Wl,-soname,libnprocguard-harden.so \
	  -o $@ $< -ldl

$(BUILD)/tests/audit/%: tests/audit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -D_GNU_SOURCE $(CFLAGS) $(LDFLAGS) -o $@ $< -lpthread -lseccomp

# A fault injector for the exec tests (not a unit test: no test- prefix)
$(BUILD)/tests/inject: tests/exec/inject.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(shell pkg-config --libs libseccomp)

# Every test runs against the plain build and the sanitized one.
test: all
	NPG_BUILD=$(abspath $(BUILD)) prove -f tests/run-unit.sh tests/cli/*.t

# Both passes always run: a failure in the first must not hide the second's
# results. One summary line per pass; the exit status fails if either did.
# The sanitized build goes beside $(BUILD), in $(BUILD)-san.
# The floors of doc/architecture.md (tools/floors.sh, as `make floors`) are
# checked on the plain build's objects too, and fail the check the same way:
# a call up a floor is caught where every change is tested, not only when
# someone thinks of running `make floors`. Each pass's skips (a test that
# needs what this machine refuses: root, a user namespace, a built kernel
# image...) are listed after it with their reasons, from $(BUILD)/skips.
check: deps
	$(MAKE) --no-print-directory BUILD=$(BUILD) all
	$(MAKE) --no-print-directory BUILD=$(BUILD)-san SAN=1 all
	@plain=passed; san=passed; floors=passed; \
	: >$(BUILD)/skips; : >$(BUILD)-san/skips; \
	sh tools/floors.sh $(BUILD) || floors=FAILED; \
	NPG_BUILD=$(abspath $(BUILD)) NPG_SKIPS=$(abspath $(BUILD))/skips \
	  prove tests/run-unit.sh tests/cli/*.t || plain=FAILED; \
	NPG_BUILD=$(abspath $(BUILD)-san) NPG_SKIPS=$(abspath $(BUILD)-san)/skips ASAN_OPTIONS=detect_leaks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 prove tests/run-unit.sh tests/cli/*.t || san=FAILED; \
	for pass in $(BUILD) $(BUILD)-san; do \
	  echo "make check: skipped in $$pass/: $$(wc -l <$$pass/skips)"; sed 's/^/  /' $$pass/skips; \
	done; \
	echo "make check: floors of src/ (tools/floors.sh $(BUILD)): $$floors"; \
	echo "make check: plain build ($(BUILD)/): $$plain"; \
	echo "make check: ASan+UBSan build ($(BUILD)-san/): $$san"; \
	test $$floors = passed && test $$plain = passed && test $$san = passed

# The structure of src/ drawn from its includes and the built objects' symbols:
# no circle, no arrow up a floor of doc/architecture.md.
floors: all
	@sh tools/floors.sh $(BUILD)

# all, not only the binary: the README's next examples use the hardening
# library and build/tests/*
demo: deps
	@$(MAKE) --no-print-directory -s all
	@$(BIN) run scenarios/article/*.npg

# The seed scenarios as kernel selftests in $(BUILD)/kselftest, built (static);
# `make -C $(BUILD)/kselftest run_tests` as root runs them. Each checks the
# policy of the running kernel's era, or KSELFTEST_POLICY's.
KSELFTEST_POLICY ?=
kselftest: $(BIN)
	$(BIN) export --format kselftest $(if $(KSELFTEST_POLICY),--policy $(KSELFTEST_POLICY)) \
	  -o $(BUILD)/kselftest scenarios/article/*.npg
	$(MAKE) --no-print-directory -C $(BUILD)/kselftest

# identify's probes, found from the model itself (nprocguard identify
# --generate): for every configuration of the history and each neighbour, a
# smallest scenario that tells them apart -- searched in the seed and
# regression scenarios, then in IDENTIFY_RANDOM random ones, each shrunk --
# written to scenarios/identify/ with what each separates (checked by
# tests/unit/test-identify.c) and UNSEPARATED; then the binary is rebuilt
# with them linked in.
IDENTIFY_RANDOM ?= 10000
identify-probes: $(BIN)
	$(BIN) identify --generate $(PROBE_DIR) --random $(IDENTIFY_RANDOM) \
	  $(sort $(wildcard scenarios/article/*.npg scenarios/regression/*.npg))
	$(MAKE) --no-print-directory all

# Every scenario on the model of this kernel and on the kernel itself (root).
conform: $(BIN)
	@$(BIN) conform --quiet scenarios/article/*.npg scenarios/regression/*.npg

# Every kernel image against its era's model under QEMU: Debian's 5.10, 6.1
# and 6.12 (downloaded once) and each image in NPG_KERNELS (default
# ../shared/kernels); the scenario files and 300 random scenarios each.
kernels: $(BIN)
	@tools/conform-kernels.sh $(abspath $(BIN))

# A Linux 3.0.8 image per patch of kernel/patches/3.0.8 (the seeds' policies
# and linux-3.1), and seed 001 verbatim, built with ../shared/kernels'
# script, cached outside the tree by the hash of what they are built from;
# `make kernels` then runs each against the policy its release names.
seed-kernels:
	@tools/seed-kernels.sh

# libFuzzer (clang), one harness per reader of outside input: fuzz/fuzz-NAME.c,
# its corpus in fuzz/corpus/NAME/, its dictionary fuzz/NAME.dict if any, and
# the inputs of bugs it found in fuzz/regress/NAME/. `make fuzz` runs each
# harness for FUZZ_SECONDS under ASan and UBSan (FUZZ_TARGETS picks some);
# `make fuzz-merge` minimizes each corpus (-merge=1). Every build makes each
# harness without libFuzzer too ($(BUILD)/fuzz/replay-NAME, fuzz/replay.c):
# `make check` replays every corpus and regression input (tests/cli/fuzz.t).
FUZZ_NAMES   := $(patsubst fuzz/fuzz-%.c,%,$(wildcard fuzz/fuzz-*.c))
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build-fuzz
FUZZ_SAN     := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_HDRS    := $(wildcard fuzz/*.h)
# the longest input each takes, and where it finds seeds besides its corpus
FUZZ_LEN_parser  := 4096
FUZZ_SEEDS_parser := scenarios/article scenarios/regression
FUZZ_LEN_record  := 16384
FUZZ_LEN_stream  := 4096
FUZZ_LEN_wire    := 8192
FUZZ_LEN_kst-wire := 8192
FUZZ_REPLAY  := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay-%)

all: $(FUZZ_REPLAY)

$(BUILD)/fuzz/replay-%: fuzz/fuzz-%.c fuzz/replay.c $(FUZZ_HDRS) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< fuzz/replay.c $(LIBA) $(LDLIBS)

# the runtime's wire alone, compiled as an export compiles it (no -Isrc)
$(BUILD)/fuzz/replay-kst-wire: fuzz/fuzz-kst-wire.c fuzz/replay.c $(FUZZ_HDRS) $(KST_RUNTIME)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -I$(KST_DIR) $(CFLAGS) $(LDFLAGS) -o $@ $< fuzz/replay.c $(KST_DIR)/npg_kst_wire.c

$(FUZZ_BUILD)/fuzz-%: fuzz/fuzz-%.c $(FUZZ_HDRS) $(FUZZ_BUILD)/libnprocguard.a
	clang $(WARN) $(CPPFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libnprocguard.a $(LDLIBS)

$(FUZZ_BUILD)/fuzz-kst-wire: fuzz/fuzz-kst-wire.c $(FUZZ_HDRS) $(KST_RUNTIME)
	@mkdir -p $(dir $@)
	clang $(WARN) -I$(KST_DIR) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(KST_DIR)/npg_kst_wire.c

define FUZZ_RUN
mkdir -p fuzz/corpus/$(1)
$(FUZZ_BUILD)/fuzz-$(1) -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_LEN_$(1)) \
  $(if $(wildcard fuzz/$(1).dict),-dict=fuzz/$(1).dict) fuzz/corpus/$(1) $(wildcard fuzz/regress/$(1)) $(FUZZ_SEEDS_$(1))

endef

define FUZZ_MERGE
rm -rf $(FUZZ_BUILD)/merge-$(1) && mkdir -p $(FUZZ_BUILD)/merge-$(1)
$(FUZZ_BUILD)/fuzz-$(1) -merge=1 -max_len=$(FUZZ_LEN_$(1)) $(FUZZ_BUILD)/merge-$(1) fuzz/corpus/$(1)
rm -rf fuzz/corpus/$(1) && mv $(FUZZ_BUILD)/merge-$(1) fuzz/corpus/$(1)

endef

fuzz-build:
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang \
	  CFLAGS='$(FUZZ_SAN) -fsanitize=fuzzer-no-link' $(FUZZ_BUILD)/libnprocguard.a
	$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)

fuzz: fuzz-build
	$(foreach t,$(FUZZ_TARGETS),$(call FUZZ_RUN,$(t)))

fuzz-merge: fuzz-build
	$(foreach t,$(FUZZ_TARGETS),$(call FUZZ_MERGE,$(t)))

LIBDIR    ?= $(PREFIX)/lib
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
INCDIR    ?= $(PREFIX)/include
install: $(BIN) $(PRIVDROP_A) $(PRIVDROP_SO) $(HARDEN_SO)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
	  $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/nprocguard
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/nprocguard
	install -m 0644 doc/nprocguard.1 $(DESTDIR)$(MANDIR)/man1/nprocguard.1
	install -m 0644 doc/npg_drop_privileges.3 $(DESTDIR)$(MANDIR)/man3/npg_drop_privileges.3
	ln -sf npg_drop_privileges.3 $(DESTDIR)$(MANDIR)/man3/npg_nproc_execve_verdict.3
	install -m 0644 include/nprocguard/privdrop.h $(DESTDIR)$(INCDIR)/nprocguard/privdrop.h
	install -m 0644 $(PRIVDROP_A) $(DESTDIR)$(LIBDIR)/libnprocguard-privdrop.a
	install -m 0755 $(PRIVDROP_SO) $(DESTDIR)$(LIBDIR)/libnprocguard-privdrop.so.0
	install -m 0755 $(HARDEN_SO) $(DESTDIR)$(LIBDIR)/libnprocguard-harden.so
	ln -sf libnprocguard-privdrop.so.0 $(DESTDIR)$(LIBDIR)/libnprocguard-privdrop.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' doc/nprocguard-privdrop.pc.in \
	  >$(DESTDIR)$(LIBDIR)/pkgconfig/nprocguard-privdrop.pc
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed -e 's|@BINDIR@|$(BINDIR)|' doc/systemd/nprocguard-pin.service.in \
	  >$(DESTDIR)$(SYSTEMDUNITDIR)/nprocguard-pin.service
	# the metrics timer: installed, not enabled (systemctl enable --now nprocguard-metrics.timer)
	sed -e 's|@BINDIR@|$(BINDIR)|' doc/systemd/nprocguard-metrics.service.in \
	  >$(DESTDIR)$(SYSTEMDUNITDIR)/nprocguard-metrics.service
	install -m 0644 doc/systemd/nprocguard-metrics.timer $(DESTDIR)$(SYSTEMDUNITDIR)/nprocguard-metrics.timer

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
