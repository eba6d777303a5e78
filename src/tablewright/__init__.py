"""tablewright: executable DynamoDB designs."""

__version__ = "0.1.0"
