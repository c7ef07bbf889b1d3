"""A tiny command-line todo list stored in one JSON file."""

__version__ = "0.4.0"
