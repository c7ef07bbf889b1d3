// Command iniq prints values from an INI file: `iniq FILE section.key` or `iniq -dump FILE`.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"example.com/confini/ini"
)

func main() {
	dump := flag.Bool("dump", false, "print the whole file in canonical form")
	flag.Parse()
	args := flag.Args()
	if (*dump && len(args) != 1) || (!*dump && len(args) != 2) {
		fmt.Fprintln(os.Stderr, "usage: iniq FILE section.key | iniq -dump FILE")
		os.Exit(2)
	}
	f, err := ini.ParseFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "iniq:", err)
		os.Exit(1)
	}
	if *dump {
		f.WriteTo(os.Stdout)
		return
	}
	section, key := "", args[1]
	if i := strings.LastIndex(args[1], "."); i >= 0 {
		section, key = args[1][:i], args[1][i+1:]
	}
	v, ok := f.Get(section, key)
	if !ok {
		fmt.Fprintf(os.Stderr, "iniq: %s not found\n", args[1])
		os.Exit(1)
	}
	fmt.Println(v)
}
