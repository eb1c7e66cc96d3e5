"""Loaders: dataset files in, Tasks out, nothing else."""
