"""Core: the public domain, parameter validation, randomness, noise, the exponential mechanism,
the ledger and budget plans, the measure step and the flat tree. May import nothing outside psdviz.core."""
