"""Core: the public domain, parameter validation, randomness, noise, the exponential mechanism,
the ledger and budget plans, the measure step and the flat tree. Imports nothing from psdviz above it."""
