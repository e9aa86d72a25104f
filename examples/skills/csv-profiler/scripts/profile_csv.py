#!/usr/bin/env python3
"""Profile a CSV file: shape, and per column the type, missing values, distinct values and ranges.

Usage:
    python3 scripts/profile_csv.py PATH [--delimiter CHAR] [--encoding NAME]
                                        [--max-rows N] [--top N] [--format text|json]

PATH must be a regular file (it is read twice: a sample, then the rows). The first row is the
header. The delimiter is detected from the first 64 KiB unless given.
Every metric is defined in references/metrics.md. Standard library only; the file is only read.

Exit status: 0 on success, 1 when the file cannot be read or has no header row, 2 on bad
command-line arguments.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import statistics
import sys
from collections import Counter
from datetime import date, datetime
from typing import Any

SNIFF_BYTES = 64 * 1024
SNIFF_DELIMITERS = ",;\t|"
MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "null", "none"})
BOOLEAN_TOKENS = frozenset({"true", "false", "yes", "no"})

INTEGER_RE = re.compile(r"[+-]?\d+")
FLOAT_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
DATETIME_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?"
)


class ProfileError(Exception):
    """Raised when the file cannot be read or has no header row."""


def is_missing(value: str) -> bool:
    """True when a cell counts as missing (see references/metrics.md)."""
    return value.strip().lower() in MISSING_TOKENS


def parse_dates(values: list[str]) -> list[date] | list[datetime] | None:
    """Parse every value as an ISO date, or every value as an ISO date-time; else None.

    Date-times must be all naive or all carry an offset, so that they can be compared.
    """
    if all(DATE_RE.fullmatch(v) for v in values):
        try:
            return [date.fromisoformat(v) for v in values]
        except ValueError:
            return None
    if all(DATETIME_RE.fullmatch(v) for v in values):
        try:
            parsed = [datetime.fromisoformat(v) for v in values]
        except ValueError:
            return None
        if len({p.tzinfo is None for p in parsed}) == 1:
            return parsed
    return None


def infer_type(values: list[str]) -> str:
    """Return the narrowest type that fits every present value of a column."""
    if not values:
        return "empty"
    if all(INTEGER_RE.fullmatch(v) for v in values):
        return "integer"
    if all(FLOAT_RE.fullmatch(v) for v in values):
        return "float"
    if all(v.lower() in BOOLEAN_TOKENS for v in values):
        return "boolean"
    parsed = parse_dates(values)
    if parsed is not None:
        return "date" if type(parsed[0]) is date else "datetime"
    return "string"


def numeric_stats(values: list[str], kind: str) -> dict[str, Any]:
    """min, max, mean, median and sample standard deviation (None with fewer than 2 values)."""
    numbers: list[float] | list[int]
    numbers = [int(v) for v in values] if kind == "integer" else [float(v) for v in values]
    stdev = statistics.stdev(numbers) if len(numbers) > 1 else None
    return {
        "min": min(numbers),
        "max": max(numbers),
        "mean": round(statistics.fmean(numbers), 6),
        "median": statistics.median(numbers),
        "stdev": None if stdev is None or math.isnan(stdev) else round(stdev, 6),
    }


def profile_column(name: str, cells: list[str], top: int) -> dict[str, Any]:
    """Profile one column; ``cells`` holds one raw string per data row."""
    present = [c.strip() for c in cells if not is_missing(c)]
    kind = infer_type(present)
    counts = Counter(present)
    column: dict[str, Any] = {
        "name": name,
        "type": kind,
        "count": len(cells),
        "missing": len(cells) - len(present),
        "missing_pct": round(100 * (len(cells) - len(present)) / len(cells), 2) if cells else 0.0,
        "distinct": len(counts),
        "unique": len(counts) == len(present) and len(present) > 0,
        "top": [[value, n] for value, n in counts.most_common(top)],
    }
    if kind in ("integer", "float"):
        column.update(numeric_stats(present, kind))
    elif kind in ("date", "datetime"):
        parsed = parse_dates(present) or []
        column["min"] = min(parsed).isoformat()
        column["max"] = max(parsed).isoformat()
    elif kind in ("string", "boolean"):
        lengths = [len(v) for v in present]
        column["min_length"], column["max_length"] = min(lengths), max(lengths)
    return column


def detect_delimiter(sample: str) -> str:
    """Guess the delimiter from a text sample.

    The standard sniffer decides first; when it gives up (ragged rows, a cut-off last line), the
    candidate that occurs most often in the header line wins, and a comma when none occurs.
    """
    try:
        return csv.Sniffer().sniff(sample, delimiters=SNIFF_DELIMITERS).delimiter
    except csv.Error:
        first_line = sample.splitlines()[0] if sample else ""
        best = max(SNIFF_DELIMITERS, key=first_line.count)
        return best if first_line.count(best) > 0 else ","


def profile(
    path: str, delimiter: str | None, encoding: str, max_rows: int, top: int
) -> dict[str, Any]:
    """Read the file and return the whole profile as a JSON-compatible dict.

    Raises:
        ProfileError: the file cannot be opened or decoded, or it has no header row.
    """
    try:
        with open(path, encoding=encoding, newline="") as handle:
            sample = handle.read(SNIFF_BYTES)
            handle.seek(0)
            used = delimiter or detect_delimiter(sample)
            reader = csv.reader(handle, delimiter=used)
            header = next(reader, None)
            if not header:
                raise ProfileError(f"{path}: no header row")
            columns: list[list[str]] = [[] for _ in header]
            rows = ragged = blank = 0
            truncated = False
            for record in reader:
                if not record:
                    blank += 1
                    continue
                if max_rows and rows >= max_rows:
                    truncated = True
                    break
                rows += 1
                if len(record) != len(header):
                    ragged += 1
                for index, cells in enumerate(columns):
                    cells.append(record[index] if index < len(record) else "")
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ProfileError(f"{path}: {exc}") from exc
    names = [h.strip() for h in header]
    return {
        "file": path,
        "delimiter": used,
        "rows": rows,
        "columns": len(header),
        "truncated": truncated,
        "ragged_rows": ragged,
        "blank_lines": blank,
        "duplicate_headers": sorted(n for n, c in Counter(names).items() if c > 1),
        "profile": [profile_column(n, cells, top) for n, cells in zip(names, columns, strict=True)],
    }


def render_text(result: dict[str, Any]) -> str:
    """Render a profile as a plain-text report, one block per column."""
    lines = [
        f"file: {result['file']}",
        f"rows: {result['rows']}  columns: {result['columns']}  delimiter: {result['delimiter']!r}",
        f"ragged rows: {result['ragged_rows']}  blank lines: {result['blank_lines']}"
        + ("  (stopped at --max-rows)" if result["truncated"] else ""),
    ]
    if result["duplicate_headers"]:
        lines.append(f"duplicate headers: {', '.join(result['duplicate_headers'])}")
    skip = {"name", "type", "top"}
    for column in result["profile"]:
        lines += ["", f"[{column['name']}] {column['type']}"]
        lines += [f"  {key}: {value}" for key, value in column.items() if key not in skip]
        lines.append("  top: " + ", ".join(f"{v!r} x{n}" for v, n in column["top"]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description="Profile a CSV file.")
    parser.add_argument("path", help="CSV file to profile")
    parser.add_argument("--delimiter", help="field delimiter; \\t for a tab (default: detected)")
    parser.add_argument(
        "--encoding", default="utf-8-sig", help="text encoding (default: utf-8-sig)"
    )
    parser.add_argument("--max-rows", type=int, default=0, help="stop after N data rows (0: all)")
    parser.add_argument("--top", type=int, default=5, help="most frequent values to show")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    if args.delimiter == "\\t":
        args.delimiter = "\t"
    if args.delimiter is not None and len(args.delimiter) != 1:
        parser.error("--delimiter must be a single character")
    if args.max_rows < 0 or args.top < 0:
        parser.error("--max-rows and --top must not be negative")
    try:
        result = profile(args.path, args.delimiter, args.encoding, args.max_rows, args.top)
    except (ProfileError, LookupError) as exc:
        print(f"profile_csv: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if args.format == "json" else render_text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
