"""Dataset loaders, one per format: file -> Task, nothing else."""
