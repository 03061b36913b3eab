"""The parts of scripts/soak: templates and their expected answers (templates, reference), the
load clients (connection, exchange, requests, client, load), what is checked (checks), the
daemon's figures from /proc (monitor) and the summary (summary). `common` holds the limits
they share."""
