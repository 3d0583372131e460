"""Formats with other separators, for tests/advisor/test_messages_numbers.py."""

DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = " "
NUMBER_GROUPING = 3
