"""Systems under test: the plug-in contract, the registry, built-ins, adapters; imports data, encoding and below."""
