"""Reports: content, fingerprints, cards, figures, tables, official logs, comparisons; imports benchmarks and below."""
