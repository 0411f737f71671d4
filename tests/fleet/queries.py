#!/usr/bin/env python3
"""The PromQL queries of a Grafana dashboard, its variables given values
as Grafana gives them ($__rate_interval a minute, $instance any board).

  queries.py DASHBOARD.json rules   a rules file (one recording rule a
                                    query) for promtool check rules
  queries.py DASHBOARD.json list    one query a line, for a Prometheus
"""
import json
import sys

VALUES = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "1h",
          '=~"$instance"': '=~".*"'}


def queries(dash):
    for p in dash["panels"]:
        for t in p.get("targets", []):
            q = t["expr"]
            for k, v in VALUES.items():
                q = q.replace(k, v)
            if "$" in q:
                raise SystemExit(f"panel {p['title']!r}: a variable left in {q!r}")
            yield p["title"], q


with open(sys.argv[1]) as f:
    dash = json.load(f)
qs = list(queries(dash))
if not qs:
    raise SystemExit("no query in the dashboard")
if sys.argv[2] == "rules":
    print("groups:\n  - name: dashboard\n    rules:")
    for i, (_, q) in enumerate(qs):
        print(f"      - record: dashboard_query_{i}\n        expr: {json.dumps(q)}")
else:
    for title, q in qs:
        print(json.dumps({"panel": title, "expr": q}))
