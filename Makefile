# drover - the two commands: `make run` and `make test`.
#
#   make run            install what is missing, build, show a planned
#                       rollout, then run `drover serve` (SQLite, the
#                       default data directory, the process runtime) with
#                       the example service deployed (SERVE_FLAGS=...)
#   make test           install, build, run every test (unit, golden, fuzz
#                       regressions, layering)
#   make test SANITIZE=1  the same under AddressSanitizer + UBSan
#   make bench          benchmarks with figures (bench/)
#   make fuzz           run the decoder fuzzer for FUZZ_SECONDS (default 60)
#   make chaos          the crash campaign for CHAOS_SECONDS (default 600):
#                       rollouts of real processes with SIGKILLs of the
#                       daemon (CHAOS_SEED=N replays, CHAOS_TRIALS=N caps,
#                       CHAOS_TRAFFIC=1: only trials with traffic)

SANITIZE ?= 0
JOBS ?= 2
FUZZ_SECONDS ?= 60
CHAOS_SECONDS ?= 600
CHAOS_SEED ?=
CHAOS_TRIALS ?=
CHAOS_TRAFFIC ?=
ifeq ($(SANITIZE),1)
BUILD ?= build-asan
CMAKE_FLAGS = -DSANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
else
BUILD ?= build
CMAKE_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo
endif

.PHONY: all deps build run demo test check-layers bench fuzz chaos format clean

all: build

deps:
	@scripts/deps.sh build test

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

run: build
	./$(BUILD)/drover plan --simulate -f examples/plan/rolling-10.yaml -o text
	@echo
	scripts/run.sh $(BUILD) $(SERVE_FLAGS)

demo: build
	./$(BUILD)/drover plan --simulate -f examples/plan/rolling-10.yaml -o text

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

chaos: build
	/usr/bin/python3 tests/chaos/chaos.py --seconds $(CHAOS_SECONDS) \
		--build $(BUILD) $(if $(CHAOS_SEED),--seed $(CHAOS_SEED)) \
		$(if $(CHAOS_TRIALS),--trials $(CHAOS_TRIALS)) \
		$(if $(CHAOS_TRAFFIC),--traffic)

check-layers: build
	scripts/check-layers.sh $(BUILD)

BENCH_BUILD ?= build-bench
bench:
	@scripts/deps.sh build bench
	@cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BENCH_BUILD) -j$(JOBS) --target drover bench_plan bench_codec \
		drover-example-web proxy-harness rollout-floor
	bench/run.sh $(BENCH_BUILD)

# The libraries are instrumented too (fuzzer-no-link): without coverage of
# the codecs libFuzzer would only see the harness. UBSan reports abort so
# that the fuzzer keeps them as crashes.
FUZZ_CFLAGS = -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
fuzz:
	@scripts/deps.sh build fuzz
	@cmake -S . -B build-fuzz -DFUZZ=ON -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="$(FUZZ_CFLAGS)" >/dev/null
	@cmake --build build-fuzz -j$(JOBS) --target fuzz_decode fuzz_k8spb
	mkdir -p tests/fuzz/corpus-work tests/fuzz/corpus-k8spb-work \
		tests/fuzz/crashes
	./build-fuzz/tests/fuzz_decode -max_total_time=$(FUZZ_SECONDS) \
		-timeout=10 -rss_limit_mb=2048 -dict=tests/fuzz/yaml.dict \
		-artifact_prefix=tests/fuzz/crashes/ \
		tests/fuzz/corpus-work tests/fuzz/corpus
	./build-fuzz/tests/fuzz_k8spb -max_total_time=$(FUZZ_SECONDS) \
		-timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix=tests/fuzz/crashes/k8spb- \
		tests/fuzz/corpus-k8spb-work tests/fuzz/corpus-k8spb

format:
	clang-format -i $$(find src -name "*.[ch]") tests/unit/*.c tests/unit/*.h \
		tests/integ/*.c tests/fuzz/*.c examples/service/*.c bench/*.c bench/rollout/*.c \
		bench/proxy/*.c

clean:
	rm -rf build build-asan $(BENCH_BUILD) build-fuzz
