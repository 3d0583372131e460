"""Number formats for Simplified Chinese: prices are grouped by thousands with commas, as Chinese
platforms print them (¥28,000.00); Django's own zh_Hans formats set no grouping."""

DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
