"""Hidden check for the smoke task: run greet.py as a user would."""

import subprocess
import sys


def run(*names):
    out = subprocess.run([sys.executable, "greet.py", *names], capture_output=True, text=True, timeout=20)
    return out.returncode, out.stdout


CASES = [
    ((), "Hello, world!\n"),
    (("Ada",), "Hello, Ada!\n"),
    (("Ada", "Grace"), "Hello, Ada!\nHello, Grace!\n"),
    (("Jean-Luc", "Zoë"), "Hello, Jean-Luc!\nHello, Zoë!\n"),
]

failed = 0
for names, want in CASES:
    rc, got = run(*names)
    if rc != 0 or got != want:
        failed += 1
        print(f"FAIL greet.py {' '.join(names)!s}: exit {rc}, got {got!r}, want {want!r}")
print(f"{len(CASES) - failed}/{len(CASES)} cases pass")
sys.exit(1 if failed else 0)
