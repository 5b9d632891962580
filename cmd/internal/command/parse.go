package command

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"askuser/internal/didyoumean"
)

// Parse is fs.Parse with the usage printed on stdout when -h or --help asked
// for it (help asked for is the command's output). After any other error
// the flag package's one line is followed by the flag most likely meant and
// where help is, not by the whole usage: the line is what the user needs to
// read. name is how the user runs the command, e.g. "askuser-client ask".
func Parse(fs *flag.FlagSet, args []string, stdout io.Writer, name string) error {
	usage, stderr := fs.Usage, fs.Output()
	fs.Usage = func() {}     // printed below, once the reason is known
	fs.SetOutput(io.Discard) // the flag package's line too: said below, as the command's
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(stderr)
	case err != nil:
		fmt.Fprintf(stderr, "%s: %s\n", name, mistake(fs, err))
		HelpHint(stderr, name)
	}
	return err
}

// mistake says a parse error as askuser's programs say things: the command
// first, flags as they are written (--multi), and the flag most likely
// meant: "unknown flag --muti; did you mean --multi?".
func mistake(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		return badValue(fs, m[2], m[1], m[3])
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		msg = "unknown flag -" + name
		if guess := FlagGuess(fs, err); guess != "" {
			msg += "; did you mean --" + guess + "?"
		}
		return msg
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return Spelled(strings.TrimLeft(name, "-")) + " needs a value"
	}
	return msg
}

// invalidValue is the flag package's refusal of a value: `invalid value
// "abc" for flag -n: parse error`, `invalid boolean value "x" for -json: …`.
var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-(\S+): (.*)$`)

// badValue says a refused value in the flag's terms: what the flag wants,
// and what it got: `-n: want a number, got "abc"`. A flag of askuser's own
// type says its own reason.
func badValue(fs *flag.FlagSet, name, got, reason string) string {
	want := reason
	if f := fs.Lookup(name); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case bool:
				want = "want true or false"
			case int, int64, uint, uint64:
				want = "want a number"
				if strings.Contains(reason, "out of range") {
					want = "want a smaller number"
				}
			case float64:
				want = "want a number"
			case time.Duration:
				want = `want a duration like "30s"`
			}
		}
	}
	return Spelled(name) + ": " + want + ", got " + got
}

// Spelled is a flag as the user writes it: -n for one letter, --format for
// a word.
func Spelled(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// ParseAll parses flags wherever they appear among the positional arguments
// (`ask FILE --format text` works as well as `ask --format text FILE`);
// everything after "--" is positional. It returns the positionals, or Parse's
// error: flag.ErrHelp when help was asked for and printed, another when the
// mistake was said on fs's output.
func ParseAll(fs *flag.FlagSet, args []string, stdout io.Writer, name string) ([]string, error) {
	var pos []string
	for {
		if err := Parse(fs, args, stdout, name); err != nil {
			return nil, err
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

// FlagGuess is the flag that an "flag provided but not defined" error most
// likely meant (--muti: multi); "" for other errors or when none is close.
func FlagGuess(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return didyoumean.Nearest(strings.TrimLeft(name, "-"), names)
}

// HelpHint ends a usage error: where the whole usage is.
func HelpHint(w io.Writer, name string) {
	fmt.Fprintf(w, "Run '%s --help' for usage.\n", name)
}
