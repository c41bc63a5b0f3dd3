# The two commands of the README. Both set up everything they need first.
.PHONY: demo test test-fast bootstrap clean platformio-example tinylm docs

bootstrap:
	@./scripts/bootstrap.sh

demo: bootstrap
	.venv/bin/python -m aot demo

test: bootstrap
	./scripts/run_tests.sh

# The developer's loop (tests/README.md): no simulator, no oracle, no slow tests.
test-fast: bootstrap
	./scripts/run_tests.sh -m "not sim and not oracle and not slow"

# The tiny language model on a simulated Cortex-M33 (examples/tinylm): trains
# (about 80 s on 2 cores) unless build/tinylm/tinylm.pt exists; exits non-zero
# if eager PyTorch, the host runtime and the firmware generate different tokens.
tinylm: bootstrap
	.venv/bin/python -m examples.tinylm.demo

# The manual (docs/, mkdocs.yml) into build/site; a broken link fails it.
# `make test` builds it the same way (tests/docs/test_docs.py).
docs: bootstrap
	NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict -d build/site

clean:
	rm -rf build

# PlatformIO offline (build/platformio: core dir, tool-scons, toolchain, the
# mote-qemu platform), then the example built and run in QEMU.
platformio-example: bootstrap
	.venv/bin/python scripts/platformio_setup.py
	PLATFORMIO_CORE_DIR=$(CURDIR)/build/platformio/core \
	PLATFORMIO_WORKSPACE_DIR=$(CURDIR)/build/platformio/qemu-an505 \
	.venv/bin/pio run -d examples/platformio/qemu-an505 -t upload
