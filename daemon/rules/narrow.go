package rules

import (
	"fmt"
	"path/filepath"
	"strings"
)

// runners run another command given as their arguments or as a string:
// remembering "sh -c …" or "env X=1 …" would remember whatever they run.
var runners = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "csh": true, "tcsh": true,
	"eval": true, "exec": true, "env": true, "xargs": true, "nohup": true, "timeout": true, "nice": true,
	"command": true, "builtin": true, "source": true, ".": true, "watch": true, "ssh": true, "script": true,
	"setsid": true, "stdbuf": true, "unbuffer": true, "time": true, "strace": true, "ltrace": true,
	"python": true, "python3": true, "perl": true, "ruby": true, "node": true, "osascript": true,
}

// Narrow says why words (a command run in cwd) may not be remembered or
// answered by a rule for the tree: nil when it may. destructive is the
// configured list (rules.destructive): each entry a program and words its
// arguments must include, a short flag also inside a bundle ("rm -r" is
// "rm -rf x" and "rm x -fr" too), a long flag also as --flag=value.
func Narrow(words []string, cwd, tree string, destructive []string) error {
	prog := filepath.Base(words[0])
	if runners[prog] {
		return fmt.Errorf("%s runs another command", prog)
	}
	for _, d := range destructive {
		if matchesDestructive(words, strings.Fields(d)) {
			return fmt.Errorf("it is on the destructive list (%s)", d)
		}
	}
	for _, w := range words[1:] {
		for _, p := range pathsIn(w) {
			if !Within(resolve(p, cwd), tree) {
				return fmt.Errorf("%s is outside %s", p, tree)
			}
		}
	}
	return nil
}

// matchesDestructive: the program is entry[0] (by its base name) and every
// further word of the entry is among the arguments.
func matchesDestructive(words, entry []string) bool {
	if len(entry) == 0 || filepath.Base(words[0]) != entry[0] {
		return false
	}
	for _, e := range entry[1:] {
		found := false
		for _, w := range words[1:] {
			if argHas(w, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// argHas: w is e, or e's long flag with a value, or a bundle of short
// flags holding e's letter.
func argHas(w, e string) bool {
	switch {
	case w == e:
		return true
	case strings.HasPrefix(e, "--"):
		return strings.HasPrefix(w, e+"=")
	case len(e) == 2 && e[0] == '-' && len(w) > 2 && w[0] == '-' && w[1] != '-':
		return strings.ContainsRune(w[1:], rune(e[1]))
	}
	return false
}

// pathsIn is what in a word may name a file outside the tree: the word, or
// the value of --flag=value, when it is absolute or climbs with "..".
func pathsIn(w string) []string {
	var out []string
	cands := []string{w}
	if i := strings.IndexByte(w, '='); i >= 0 {
		cands = append(cands, w[i+1:])
	}
	for _, c := range cands {
		if strings.HasPrefix(c, "/") || c == ".." || strings.HasPrefix(c, "../") || strings.Contains(c, "/../") || strings.HasSuffix(c, "/..") {
			out = append(out, c)
		}
	}
	return out
}

func resolve(p, cwd string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// Within reports whether path is dir or below it.
func Within(path, dir string) bool {
	path, dir = filepath.Clean(path), filepath.Clean(dir)
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}
