"""The rows of scripts/bench, one module each, and what they share (common, table, compare)."""
