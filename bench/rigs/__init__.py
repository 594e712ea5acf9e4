"""What benchmarks and tests share to stand a system up: scratch databases, process groups, the money
fault rig and its fake Prolific. Not a benchmark itself (`python -m bench` runs only bench's modules)."""
