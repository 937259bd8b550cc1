# Sluice: the two commands of the README.
#   make demo   installs what is missing, builds, makes the sample data and runs the main job
#   make test   installs what is missing, builds and runs every test (C++, sanitizers, fuzzers, Python)
JOBS ?= $(shell nproc)
BUILD ?= build/release
VENV ?= .venv
PY = $(VENV)/bin/python
DATA ?= sample_data
BENCH_ARGS ?= --plot bench_out/bench.png --json bench_out/bench.json
# ccache, where installed, makes rebuilds across the build folders cheap (not required).
LAUNCHER := $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR := $(CURDIR)

.PHONY: deps venv configure build build-all build-sanitize wheel wheels test-wheel test-wheel-abi3 test-wheel-matrix demo test test-cpp test-asan test-tsan test-fuzz test-python test-soak clean bench-opencv

deps:
	@bash scripts/install_deps.sh

venv: deps
	@bash scripts/python_env.sh $(VENV) > /dev/null

# One release build folder for everything. `build` makes what the demo and the Python package run (the
# library and the extension module, into python/sluice); `build-all` adds the C++ tests,
# benchmarks and tools. Both configure alike, so build-all only adds objects.
configure: venv
	cmake -S . -B $(BUILD) $(LAUNCHER) -DCMAKE_BUILD_TYPE=Release -DSLUICE_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(abspath $(PY)) \
	  -DSLUICE_BUILD_TESTS=ON -DSLUICE_BUILD_BENCHMARKS=ON -DSLUICE_BUILD_TOOLS=ON

build: configure
	cmake --build $(BUILD) -j$(JOBS) --target _sluice

build-all: configure
	cmake --build $(BUILD) -j$(JOBS)

$(DATA)/manifest.tsv:
	bash scripts/make_sample_data.sh --force $(DATA)

demo: build $(DATA)/manifest.tsv
	@mkdir -p bench_out
	PYTHONPATH=python $(PY) -m sluice.tools.bench --data $(DATA) $(BENCH_ARGS)

# The self-contained CPU wheel in dist/ (auditwheel-repaired, smoke-tested in a fresh venv); minutes.
wheel:
	bash scripts/build_wheel.sh dist

# Both CPU wheels in dist/: cp311 (Debian 12's Python) and cp312-abi3 (one for every CPython >= 3.12,
# built against Debian 13's Python 3.13 in a cached trixie chroot and smoke-tested there). Root.
wheels:
	bash scripts/build_wheel.sh dist
	bash scripts/build_wheel.sh --abi3 dist

# The abi3 wheel on CPython 3.13 (trixie, with its torch 2.6), 3.14 and 3.15 (sid): installed into a
# fresh venv in each chroot, smoke-tested, and the Python tests that need no build tree run from it.
test-wheel-matrix: wheels
	bash scripts/test_wheel_matrix.sh dist

# CI, after make test: the wheel, installed into a venv without Debian's packages, run on the sample set.
test-wheel:
	SMOKE_ISOLATED=1 bash scripts/build_wheel.sh build/dist

# CI: the abi3 wheel, built and smoke-tested under trixie's Python 3.13 (the chroot is cached).
test-wheel-abi3:
	bash scripts/build_wheel.sh --abi3 build/dist

test-cpp: build-all
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) --timeout 600

test-python: build
	PYTHONPATH=python $(PY) -m pytest python/tests -q -p no:cacheprovider

# Memory soak at a small size: 8 epochs of 256 images; after epoch 2 RSS may grow 0.5% per epoch
# (median: a leak's rate) and 8% in all (an allocator step of one batch is not a leak). Then the
# same with 2% corrupt files and on_error="replace" (the error log must name exactly those files).
test-soak: build
	bash scripts/make_sample_data.sh --force --classes 4 --per-class 64 --shard-size 128 build/soak_data > /dev/null
	PYTHONPATH=python $(PY) -m sluice.tools.bench --soak --data build/soak_data --epochs 8 --batch-size 32 --no-progress
	PYTHONPATH=python $(PY) scripts/soak_bad_data.py --data build/soak_data --epochs 5 --fraction 0.02

# One clang build serves the ASan+UBSan tests and the libFuzzer targets: the library is compiled
# once with both sanitizers and the fuzzers' coverage instrumentation (-O1, asserts on), instead of
# once for the tests and again for the fuzzers.
SANITIZE_BUILD = build/asan
build-sanitize: deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(SANITIZE_BUILD) $(LAUNCHER) -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_FLAGS_DEBUG="-g1 -O1" -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" -DSLUICE_SANITIZE=address,undefined \
	  -DSLUICE_BUILD_FUZZERS=ON -DSLUICE_BUILD_BENCHMARKS=OFF -DSLUICE_BUILD_TOOLS=ON -DSLUICE_WITH_CUDA=OFF
	cmake --build $(SANITIZE_BUILD) -j$(JOBS)

test-asan: build-sanitize
	cd $(SANITIZE_BUILD) && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan_suppressions.txt UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j$(JOBS) --timeout 900

test-tsan: deps
	cmake -S . -B build/tsan $(LAUNCHER) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DSLUICE_SANITIZE=thread \
	  -DSLUICE_TEST_LAYERS="core;pipeline;readers" -DSLUICE_BUILD_BENCHMARKS=OFF -DSLUICE_BUILD_TOOLS=OFF -DSLUICE_WITH_CUDA=OFF
	cmake --build build/tsan -j$(JOBS)
	cd build/tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --output-on-failure -j$(JOBS) --timeout 900

# libFuzzer targets for every parser, each run for FUZZ_SECONDS on a seed corpus, JOBS at a time.
FUZZ_SECONDS ?= 20
test-fuzz: build-sanitize
	bash scripts/run_fuzzers.sh $(SANITIZE_BUILD) $(FUZZ_SECONDS) $(JOBS)

test: test-cpp test-python test-soak test-asan test-tsan test-fuzz
	@echo "make test: all test suites passed"

# Sluice's kernels against OpenCV, one thread (benchmarks/bench_kernels_vs_opencv.cc): installs
# OpenCV's C++ headers (libopencv-dev, only for this target), builds, runs 5 repetitions and writes
# the ratio table to bench_out/vs_opencv.md.
BENCH_OPENCV_ARGS ?= --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
bench-opencv: deps
	@dpkg-query -W -f='$${Status}' libopencv-dev 2>/dev/null | grep -q "install ok installed" || \
	  $$([ "$$(id -u)" -eq 0 ] || echo sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libopencv-dev
	cmake -S . -B $(BUILD) $(LAUNCHER) -DCMAKE_BUILD_TYPE=Release -DSLUICE_BUILD_BENCHMARKS=ON
	cmake --build $(BUILD) -j$(JOBS) --target bench_kernels_vs_opencv
	@mkdir -p bench_out
	$(BUILD)/bench_kernels_vs_opencv $(BENCH_OPENCV_ARGS) --benchmark_out=bench_out/vs_opencv.json --benchmark_out_format=json
	python3 benchmarks/opencv_ratio_table.py bench_out/vs_opencv.json | tee bench_out/vs_opencv.md

clean:
	rm -rf build bench_out
