# The two commands a newcomer needs (see README.md):
#   make demo   set up if needed, build, run the main job
#   make test   set up if needed, run every test (bazel test //...), then all of them again
#               under AddressSanitizer, LeakSanitizer and UBSan (--config=san)
BAZEL ?= bazel

.PHONY: demo test setup build

setup:
	@tools/setup.sh

build: setup
	$(BAZEL) build //...

demo: build
	@tools/demo.sh

test: setup
	$(BAZEL) test //...
	$(BAZEL) test --config=san //...
