"""The data layer: the Task model, dataset loaders (file -> Task), rankings files; imports io, errors, progress."""
