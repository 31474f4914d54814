"""Error types that map onto the protocol's exit codes."""


class ConfigError(Exception):
    """Invalid or missing configuration: exit code 2, not retriable.

    The message names the variable/argument/file and the rule it broke.
    """
