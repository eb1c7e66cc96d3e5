"""The dataset harness commands (longmemeval, locomo) and the options they share."""
