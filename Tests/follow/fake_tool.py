#!/usr/bin/python3
"""A stand-in for a compositor's command-line tool (see support.FakeTools)."""
import json
import os
import sys
import time

name = os.path.basename(sys.argv[0])
directory = os.environ["FAKE_DIR"]
with open(os.path.join(directory, "calls"), "a") as calls:
    calls.write(json.dumps([name] + sys.argv[1:]) + "\n")
if os.path.exists(os.path.join(directory, f"hang-{name}")):
    time.sleep(3600)
if os.path.exists(os.path.join(directory, f"fail-{name}")):
    sys.stderr.write(f"{name}: simulated failure\n")
    sys.exit(3)
with open(os.path.join(directory, "replies.json")) as f:
    replies = json.load(f)
sys.stdout.write(replies.get(" ".join([name] + sys.argv[1:]), ""))
