"""Print a greeting for each name given on the command line."""

import sys


def greeting(name):
    return "Hello " + name


def main(argv):
    for name in argv[1:]:
        print(greeting(name))


if __name__ == "__main__":
    main(sys.argv)
