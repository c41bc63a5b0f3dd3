# The two commands of the README. Both set up everything they need first.
.PHONY: demo test bootstrap clean

bootstrap:
	@./scripts/bootstrap.sh

demo: bootstrap
	.venv/bin/python -m aot.tools.demo

test: bootstrap
	./scripts/run_tests.sh

clean:
	rm -rf build
