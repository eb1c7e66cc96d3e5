"""The built-in retrievers, built by name in memrecall.systems.registry; import data, encoding and the ground floor."""
