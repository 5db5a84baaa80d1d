"""Terminal views on a rich console: ``render(subject, console, ...)``."""
