"""memrecall: does your agent memory recall the right memory?"""

__version__ = "0.1.0"
