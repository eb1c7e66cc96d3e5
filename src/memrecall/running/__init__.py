"""Running systems on tasks: the pipeline, executors, baseline and harness views; imports every lower layer."""
