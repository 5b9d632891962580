package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"askuser/cmd/internal/clientflags"
)

// newFlags makes a subcommand's flag set; its errors and usage go to stderr
// (parseArgs sends the usage asked for with -h to stdout), headed by the
// synopsis.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: askuser-client %s\n", synopsis)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(w, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseArgs parses flags wherever they appear among the positional arguments
// (`ask FILE --format text` works as well as `ask --format text FILE`);
// everything after "--" is positional. It returns the positionals, and a
// non-nil exit code when parsing ended the command: -h, whose usage goes to
// stdout (help asked for is the command's output), or a usage error already
// reported on stderr by the flag package.
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, *int) {
	var pos []string
	for {
		if err := clientflags.Parse(fs, args, stdout, "askuser-client "+fs.Name()); err != nil {
			code := exitUsage
			if errors.Is(err, flag.ErrHelp) {
				code = exitOK
			}
			return nil, &code
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
