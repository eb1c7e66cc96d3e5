"""The EpiRec authoring side: the spec rules, validate, build, audit and label tools; imports data and below."""
