# The two commands a newcomer needs (see README.md):
#   make demo   set up if needed, build, run the main job
#   make test   set up if needed, run every test (bazel test //...), the Python binding's
#               tests (python/run_tests.sh: pytest on the CPU), then the Bazel tests again
#               under AddressSanitizer, LeakSanitizer and UBSan (--config=san)
# and for deploying (README.md, "Deploying"):
#   make install [PREFIX=/usr/local]   headers, libgg and libgg_runtime, gg, gg-opt,
#               gg-launch and the pkg-config files gg.pc and gg-runtime.pc
BAZEL ?= bazel
PREFIX ?= /usr/local

.PHONY: demo test setup build install

setup:
	@tools/setup.sh

build: setup
	$(BAZEL) build //...

demo: build
	@tools/demo.sh

test: setup
	$(BAZEL) test //...
	BAZEL=$(BAZEL) python/run_tests.sh
	$(BAZEL) test --config=san //...

install: setup
	$(BAZEL) build //sdk:all //tools:gg //tools:gg-opt //tools:gg-launch
	tools/install.sh "$(PREFIX)" . "$$($(BAZEL) info bazel-bin 2>/dev/null)"
