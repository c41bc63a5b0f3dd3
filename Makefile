# The two commands of the README. Both set up everything they need first.
.PHONY: demo test bootstrap clean platformio-example

bootstrap:
	@./scripts/bootstrap.sh

demo: bootstrap
	.venv/bin/python -m aot.tools.demo

test: bootstrap
	./scripts/run_tests.sh

clean:
	rm -rf build

# PlatformIO offline (build/platformio: core dir, tool-scons, toolchain, the
# mote-qemu platform), then the example built and run in QEMU.
platformio-example: bootstrap
	.venv/bin/python scripts/platformio_setup.py
	PLATFORMIO_CORE_DIR=$(CURDIR)/build/platformio/core \
	PLATFORMIO_WORKSPACE_DIR=$(CURDIR)/build/platformio/qemu-an505 \
	.venv/bin/pio run -d examples/platformio/qemu-an505 -t upload
