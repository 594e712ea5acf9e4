"""What benchmarks and tests share to stand a system up: scratch databases, process groups, the money
fault rig (on the platform's fake Prolific, annotation/markets/prolific/fake.py). Not a benchmark itself
(`python -m bench` runs only bench's modules)."""
