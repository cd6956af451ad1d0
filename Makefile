# dcsim: every target does its own set-up from a fresh clone.
#   make demo   set up, then run a paper experiment in quick mode and plot it
#   make test   set up, then run every test (Rust and Python)
#   make bench  set up, then run the benchmarks
#   make bench-scale  set up, then the datacenter-scale benchmark (3-20 min)
#   make fuzz   set up, then 10,000 random specs (python -m dcsim.fuzz; about 25 minutes on 2 cores)

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(PATH)
RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml
PY_SRC := $(shell find python -name '*.py' -o -name '*.txt')

.PHONY: all setup build demo test test-rust test-python bench bench-scale fuzz clean

all: test

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q 'maturin>=1.5,<2'

# Release build of the extension, installed into the venv with the
# package's dependencies (and test extras).
.stamp-build: $(PY) $(RUST_SRC)
	maturin develop --release -q -E test
	touch $@

setup build: .stamp-build

# The report test loads pages in headless Chromium (Debian's package).
.stamp-chromium:
	command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	touch $@

demo: .stamp-build
	$(PY) -m dcsim reproduce pfabric-fig7-9 --quick --out out/demo

test: test-rust test-python

test-rust:
	cargo test -q -p dcsim-engine  # debug build: debug assertions on

test-python: .stamp-build .stamp-chromium
	$(PY) -m pytest

bench: .stamp-build
	rm -rf out/bench
	$(PY) -m dcsim bench --flows 20000 --repeat 3 --json out/bench/tcp.json
	$(PY) -m dcsim bench --scheme pfabric --flows 100000 --json out/bench/pfabric.json
	$(PY) -m dcsim bench --scheme ideal --flows 100000 --json out/bench/ideal.json
	$(PY) -m dcsim bench --scheme hpcc --flows 20000 --json out/bench/hpcc.json
	$(PY) -m dcsim bench --scheme dcqcn --flows 20000 --json out/bench/dcqcn.json
	$(PY) -m dcsim bench --scheme bfc --flows 20000 --json out/bench/bfc.json
	$(PY) -m dcsim bench --scheme pdq --flows 20000 --json out/bench/pdq.json
	$(PY) -m dcsim.bench_memory
	$(PY) -m dcsim.bench_cli
	$(PY) -m dcsim.bench_targets out/bench

bench-scale: .stamp-build
	mkdir -p out
	$(PY) -m dcsim.bench_scale --sweep --plot out/bench-scale.png --json out/bench-scale.json

fuzz: .stamp-build
	mkdir -p out
	$(PY) -m dcsim.fuzz --cases 10000 --keep out/fuzz-failures

clean:
	rm -rf $(VENV) target .stamp-build .stamp-chromium out
