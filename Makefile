# The two commands of the README. Both set up everything they need first.
.PHONY: demo test test-fast bootstrap clean platformio-example tinylm kws-demo docs

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

# The keyword spotter on a simulated Cortex-M33 (examples/kws/demo.py): every
# held-out clip hop by hop through eager fp32, the int8 program on the host
# runtime and the firmware in QEMU; accuracy of each, the firmware's confusion
# matrix (build/kws/confusion_firmware.png), instructions per hop and the Pico 2
# estimate, flash and RAM. Makes the dataset and trains first when build/kws lacks
# them; exits non-zero if the firmware's bytes differ from the host runtime's.
# A quick run: .venv/bin/python -m examples.kws.demo --clips 20
kws-demo: bootstrap
	.venv/bin/python -m examples.kws.demo

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
