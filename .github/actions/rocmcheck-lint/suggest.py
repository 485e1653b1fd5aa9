#!/usr/bin/env python3
"""Turn `rocmcheck lint --diff` output into one pull-request review with a suggestion per hunk.

    suggest.py DIFF            # posts (needs GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH)
    suggest.py --dry-run DIFF  # prints the review payload as JSON, posts nothing

Each hunk becomes a comment on the lines it replaces (RIGHT side, the PR's head) whose body is a
```suggestion block with the new lines; a pure insertion is attached to the line before it.
GitHub refuses comments on lines outside the pull request's diff (HTTP 422): then the whole
diff is posted as one review comment instead, so nothing is lost.
"""
import json
import os
import re
import sys
import urllib.error
import urllib.request

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def suggestions(diff: str):
    """(path, first old line, last old line, new text) per run of changed lines."""
    out = []
    path = None
    old_line = 0
    run = None  # [start, old lines, new lines, line before]

    def flush():
        nonlocal run
        if run and path:
            start, olds, news, before = run
            if olds:
                out.append((path, start, start + len(olds) - 1, "".join(news)))
            elif before is not None:
                # insertion: replace the line before with itself plus the new lines
                out.append((path, before[0], before[0], before[1] + "".join(news)))
        run = None

    last = None
    for line in diff.splitlines(keepends=True):
        if line.startswith("+++ "):
            flush()
            path = line[4:].strip()
            path = path[2:] if path.startswith("b/") else path
            continue
        if line.startswith("--- "):
            flush()
            continue
        m = HUNK.match(line)
        if m:
            flush()
            old_line = int(m.group(1))
            last = None
            continue
        if line.startswith("-"):
            if run is None:
                run = [old_line, [], [], last]
            run[1].append(line[1:])
            old_line += 1
        elif line.startswith("+"):
            if run is None:
                run = [old_line, [], [], last]
            run[2].append(line[1:])
        elif line.startswith(" "):
            flush()
            last = (old_line, line[1:])
            old_line += 1
    flush()
    return out


def payload(diff: str, sha: str):
    comments = []
    for path, start, end, new in suggestions(diff):
        c = {"path": path, "line": end, "side": "RIGHT", "body": "rocmcheck fix:\n```suggestion\n" + new + "```"}
        if start != end:
            c["start_line"] = start
            c["start_side"] = "RIGHT"
        comments.append(c)
    return {"commit_id": sha, "event": "COMMENT", "body": "rocmcheck lint --fix suggestions", "comments": comments}


def post(url: str, token: str, body: dict):
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"},
        method="POST",
    )
    with urllib.request.urlopen(req) as r:
        return r.status


def main(argv):
    dry = "--dry-run" in argv
    args = [a for a in argv[1:] if a != "--dry-run"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    diff = open(args[0], encoding="utf-8").read()
    if not diff.strip():
        return 0
    if dry:
        print(json.dumps(payload(diff, "HEAD"), indent=2))
        return 0
    event = json.load(open(os.environ["GITHUB_EVENT_PATH"], encoding="utf-8"))
    pr = event.get("pull_request")
    if not pr:
        print("::warning::suggestions need a pull_request event; the diff is in the log", file=sys.stderr)
        return 0
    url = f"{os.environ.get('GITHUB_API_URL', 'https://api.github.com')}/repos/{os.environ['GITHUB_REPOSITORY']}/pulls/{pr['number']}/reviews"
    token = os.environ["GITHUB_TOKEN"]
    try:
        post(url, token, payload(diff, pr["head"]["sha"]))
    except urllib.error.HTTPError as e:
        if e.code == 403:
            # A pull request from a fork gets a read-only token: no reviews can be posted.
            print("::notice::rocmcheck could not post review suggestions (403: the token cannot "
                  "write to this pull request, as for one from a fork); the diff is in the log "
                  "and the step summary", file=sys.stderr)
            return 0
        if e.code != 422:
            raise
        # a fix touches lines outside the pull request's diff: post the diff itself
        body = {"commit_id": pr["head"]["sha"], "event": "COMMENT",
                "body": "rocmcheck lint --fix would change:\n```diff\n" + diff + "```"}
        post(url, token, body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
