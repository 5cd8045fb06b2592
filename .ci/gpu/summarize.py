"""Counts of a device check's compat_gpu.jsonl(.gz): outcomes, then the commonest failure
messages and the files with most failures.  usage: summarize.py FILE [N]"""

import collections
import gzip
import json
import sys


def main() -> None:
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    opener = gzip.open if path.endswith(".gz") else open
    outcomes: collections.Counter[str] = collections.Counter()
    messages: collections.Counter[str] = collections.Counter()
    files: collections.Counter[str] = collections.Counter()
    with opener(path, "rt") as f:
        for line in f:
            record = json.loads(line)
            outcomes[record["o"]] += 1
            if record["o"] in ("failed", "error"):
                messages[record.get("m", "")[:140]] += 1
                files[record["id"].split("::")[0]] += 1
    print(" ".join(f"{k}={v}" for k, v in sorted(outcomes.items())))
    for title, counter in (("messages", messages), ("files", files)):
        print(f"\n# {title}")
        for key, n in counter.most_common(top):
            print(f"{n:6d}  {key}")


if __name__ == "__main__":
    main()
