"""The .ci scripts' reader: a JSON document from a file, gzipped (name ending .gz) or not."""
import gzip
import json


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)
