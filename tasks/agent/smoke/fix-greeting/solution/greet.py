"""Print a greeting for each name given on the command line."""

import sys


def greeting(name):
    return f"Hello, {name}!"


def main(argv):
    names = argv[1:] or ["world"]
    for name in names:
        print(greeting(name))


if __name__ == "__main__":
    main(sys.argv)
