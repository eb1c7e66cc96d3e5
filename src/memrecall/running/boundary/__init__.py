"""The trust boundary around plug-ins: sealed views, the worker process and its wire, identity in signed content."""
