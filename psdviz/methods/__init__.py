"""Methods: one short module per private spatial decomposition, built on the shared operators below,
and the registry that names them. May import core, splits, inference, query, publish and io."""
