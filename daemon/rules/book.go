// Package rules is askuserd's remembered decisions (docs/contract.md §13):
// the rules file in the state dir (book.go), what a permission prompt would
// allow in one form for every agent (subject.go, shell.go), which commands
// are never remembered (narrow.go) and the options that offer a rule
// (propose.go). It decides; the daemon's queue goroutine calls it and owns
// it, so nothing here locks. It knows nothing of the socket or the views.
package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"askuser/internal/atomicfile"
	"askuser/socketproto"
)

// FileName is the rules file's name in the state dir.
const FileName = "rules.json"

// fileForm is rules.json.
type fileForm struct {
	// Revision goes up with every change. A save of the file carrying an
	// older revision than the daemon's was edited from a stale copy, and
	// is refused: it cannot bring back a rule revoked since.
	Revision int `json:"revision"`
	// NextID is the id the next rule gets: ids are never given twice, so
	// that history's ruleId and a rule's use count name one rule for good.
	NextID int                `json:"nextId,omitempty"`
	Rules  []socketproto.Rule `json:"rules"`
}

// Book is the rules, as the file holds them.
type Book struct {
	path  string
	uid   int
	rev   int
	rules []socketproto.Rule
	// next is the lowest id never given (fileForm.NextID).
	next int
	// last is the file's bytes as last read or written: a file unchanged
	// since is not read again. seen is its lstat then: while lstat says
	// the same file, unchanged, it is not opened at all, so a permission
	// prompt costs one lstat, not a read of up to 4 MiB.
	last []byte
	seen os.FileInfo
	// refused is set while the file is one that others could have written:
	// then no rule answers.
	refused bool
	problem string
	use     map[int]socketproto.RuleUse
	now     func() time.Time
}

// Open reads the rules file at path (it need not exist).
func Open(path string, now func() time.Time) *Book {
	b := &Book{path: path, uid: os.Getuid(), use: map[int]socketproto.RuleUse{}, now: now}
	b.Refresh()
	return b
}

// Problem is why the file was last refused, "" when it was not.
func (b *Book) Problem() string { return b.problem }

// Path is the rules file.
func (b *Book) Path() string { return b.path }

// Refresh takes in the user's own edits of the file, if any, and says
// whether the rules changed. A file others can write is refused (no rule
// answers until it is fixed); a file that does not parse, holds a rule
// that breaks a rule of its own, or was saved from a copy older than the
// daemon's revision is refused and left as it was for the first two, and
// written back from the daemon's rules for the last (the stale copy kept
// beside it as rules.json.stale).
func (b *Book) Refresh() bool {
	fi, err := os.Lstat(b.path)
	if err == nil && b.seen != nil && sameStat(fi, b.seen) {
		return false
	}
	b.seen = nil
	data, err := b.read()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return b.removed()
	case err != nil:
		b.refused, b.problem = true, err.Error()
		b.seen = fi // refused until it changes
		return false
	}
	b.refused = false
	b.seen = fi
	if bytes.Equal(data, b.last) {
		return false
	}
	return b.takeEdit(data)
}

// removed is the file deleted: by hand, the user's edit, no rule left.
func (b *Book) removed() bool {
	b.refused, b.problem = false, ""
	if len(b.rules) > 0 && b.last != nil {
		b.rules, b.last = nil, nil
		return true
	}
	return false
}

// takeEdit takes in the file's new bytes, or refuses them saying why.
func (b *Book) takeEdit(data []byte) bool {
	var f fileForm
	if err := json.Unmarshal(data, &f); err != nil {
		b.problem = fmt.Sprintf("%s: %v; the rules are as before it was saved", b.path, err)
		b.last = data
		return false
	}
	if f.Revision < b.rev {
		b.problem = fmt.Sprintf("%s: saved from revision %d, but the rules changed since (now revision %d); that copy is kept as %s.stale and the file is written again from the current rules, so nothing revoked comes back",
			b.path, f.Revision, b.rev, FileName)
		// Through the atomic writer: a FIFO at the .stale path never blocks.
		_ = atomicfile.Write(b.path+".stale", data, 0o600)
		if err := b.save(); err != nil {
			b.problem += "; writing it again: " + err.Error()
		}
		return false
	}
	rules, err := b.checkEdit(f.Rules)
	if err != nil {
		b.problem = fmt.Sprintf("%s: %v; the rules are as before it was saved", b.path, err)
		b.last = data
		return false
	}
	b.problem = ""
	b.rev = max(b.rev, f.Revision)
	b.next = max(b.next, f.NextID)
	changed := !slices.EqualFunc(rules, b.rules, sameRule)
	b.rules = rules
	b.last = data
	if changed || slices.ContainsFunc(f.Rules, func(r socketproto.Rule) bool { return r.ID == 0 }) {
		// The user's edit is a new revision: a copy of the file from
		// before it is now stale.
		b.rev++
		if err := b.save(); err != nil {
			b.problem = err.Error()
		}
	}
	return changed
}

// sameStat: a and b, two lstats of the rules file, are the same file with
// the same size, time, mode and owner. An editor's save (a new file renamed
// into place) is another file; a write in place moves the time.
func sameStat(a, b os.FileInfo) bool {
	if !os.SameFile(a, b) || a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) || a.Mode() != b.Mode() {
		return false
	}
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Uid == sb.Uid
}

func sameRule(a, b socketproto.Rule) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// read reads the file if it is the user's own regular file that no one
// else can write (as OpenSSH's StrictModes asks of ~/.ssh).
func (b *Book) read() ([]byte, error) {
	f, err := os.OpenFile(b.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link; no rule answers until it is the file itself", b.path)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; no rule answers until it is", b.path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != b.uid {
		return nil, fmt.Errorf("%s is owned by uid %d, not by you; no rule answers until it is yours (chown) or removed", b.path, st.Uid)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return nil, fmt.Errorf("%s has mode %04o, which lets others write rules; no rule answers until you run chmod 600 %s", b.path, perm, b.path)
	}
	return readAll(f, 4<<20)
}

func readAll(f *os.File, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(&limitReader{f, limit + 1})
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("the rules file is larger than %d bytes", limit)
	}
	return buf.Bytes(), nil
}

type limitReader struct {
	f *os.File
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("too large")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= int64(n)
	return n, err
}

// checkEdit holds the rules of a saved file to the rules a rule must keep,
// naming the first that does not; rules without an id are given one.
func (b *Book) checkEdit(in []socketproto.Rule) ([]socketproto.Rule, error) {
	out := slices.Clone(in)
	ids := map[int]bool{}
	next := b.nextID()
	for _, r := range in {
		next = max(next, r.ID+1)
	}
	for i := range out {
		r := &out[i]
		field := fmt.Sprintf("rules[%d]", i)
		if r.ID != 0 && r.ID < b.next && b.Rule(r.ID) == nil {
			return nil, fmt.Errorf("%s.id: %d was given to a rule before; ids are never given twice (leave id out and the rule gets a new one)", field, r.ID)
		}
		if r.ID == 0 {
			r.ID = next
			next++
			if r.Made.IsZero() {
				r.Made = b.now().UTC().Truncate(time.Second)
			}
			if r.MadeVia == "" {
				r.MadeVia = "hand"
			}
		}
		if err := checkRule(*r); err != nil {
			return nil, fmt.Errorf("%s.%w", field, err)
		}
		if ids[r.ID] {
			return nil, fmt.Errorf("%s.id: %d is taken by an earlier rule", field, r.ID)
		}
		ids[r.ID] = true
	}
	b.next = max(b.next, next)
	return out, nil
}

// checkRule is what any rule must be, however it was made.
func checkRule(r socketproto.Rule) error {
	switch {
	case r.ID < 0:
		return fmt.Errorf("id: must be positive, got %d", r.ID)
	case r.Tool != ShellTool:
		return fmt.Errorf("tool: must be %q (rules cover shell commands), got %q", ShellTool, r.Tool)
	case r.Match != socketproto.MatchPrefix && r.Match != socketproto.MatchExact:
		return fmt.Errorf("match: must be %q or %q, got %q", socketproto.MatchPrefix, socketproto.MatchExact, r.Match)
	case !filepath.IsAbs(r.Dir):
		return fmt.Errorf("dir: must be an absolute directory, got %q", r.Dir)
	case r.Agents == "":
		return fmt.Errorf("agents: must be a kind of agent (claude-code, codex, opencode) or %q", socketproto.AllAgents)
	}
	words, err := Words(r.Command)
	if err != nil {
		return fmt.Errorf("command: %q cannot be a rule: %v", r.Command, err)
	}
	if Join(words) != r.Command {
		return fmt.Errorf("command: write it as %q (one space between words, quoted only where needed)", Join(words))
	}
	return nil
}

// nextID is the lowest id never given to a rule.
func (b *Book) nextID() int {
	n := max(b.next, 1)
	for _, r := range b.rules {
		n = max(n, r.ID+1)
	}
	return n
}

// Seen raises the next id above id, a rule's id found elsewhere (history
// names rules that were revoked since).
func (b *Book) Seen(id int) { b.next = max(b.next, id+1) }

// save writes the rules as revision b.rev: a new file renamed into place,
// the user's alone (atomicfile).
func (b *Book) save() error {
	data, err := json.MarshalIndent(fileForm{Revision: b.rev, NextID: b.nextID(), Rules: b.rules}, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if b.rules == nil {
		data = bytes.Replace(data, []byte(`"rules": null`), []byte(`"rules": []`), 1)
	}
	// Through the one atomic writer of the state dir: temporary file,
	// fsync, rename, directory fsync; anything but a regular file at the
	// path is refused and left alone.
	if err := atomicfile.Write(b.path, data, 0o600); err != nil && !errors.Is(err, atomicfile.ErrNotSynced) {
		return err
	}
	b.last = data
	b.seen = nil
	if fi, err := os.Lstat(b.path); err == nil {
		b.seen = fi
	}
	return nil
}

// Add saves a new rule, made by the user's choice, and returns it with its id.
func (b *Book) Add(r socketproto.Rule) (socketproto.Rule, error) {
	b.Refresh()
	r.ID = b.nextID()
	if err := checkRule(r); err != nil {
		return r, err
	}
	before, rev := b.rules, b.rev
	b.rules = append(slices.Clone(b.rules), r)
	b.rev++
	if err := b.save(); err != nil {
		b.rules, b.rev = before, rev
		return r, err
	}
	b.next = r.ID + 1
	return r, nil
}

// Revoke removes rule id; false when there is none.
func (b *Book) Revoke(id int) (bool, error) {
	b.Refresh()
	i := slices.IndexFunc(b.rules, func(r socketproto.Rule) bool { return r.ID == id })
	if i < 0 {
		return false, nil
	}
	before, rev := b.rules, b.rev
	b.rules = slices.Delete(slices.Clone(b.rules), i, i+1)
	b.rev++
	if err := b.save(); err != nil {
		b.rules, b.rev = before, rev
		return true, err
	}
	return true, nil
}

// Match is the rule that answers s, or nil: one for its kind of agent (or
// all), its tool, a directory tree holding s's, the same command (or its
// words followed by more, for a prefix rule), not expired; and s itself
// narrow within that tree (narrow.go), whatever the rule says.
func (b *Book) Match(s Subject, lists Lists) *socketproto.Rule {
	b.Refresh()
	if b.refused {
		return nil
	}
	now := b.now()
	for i := range b.rules {
		r := &b.rules[i]
		if r.Tool != s.Tool || (r.Agents != socketproto.AllAgents && r.Agents != s.Agent) || !Within(s.Cwd, r.Dir) {
			continue
		}
		if r.Expires != nil && !now.Before(*r.Expires) {
			continue
		}
		words, err := Words(r.Command)
		if err != nil || !covers(r.Match, words, s.Words, s.Cwd, r.Dir) {
			continue
		}
		if Narrow(s.Words, s.Cwd, r.Dir, lists) != nil {
			return nil
		}
		return r
	}
	return nil
}

// Used counts an answer by rule id at when.
func (b *Book) Used(id int, at time.Time) {
	b.Seen(id)
	u := b.use[id]
	u.Answered++
	at = at.UTC()
	if u.LastAnswered == nil || at.After(*u.LastAnswered) {
		u.LastAnswered = &at
	}
	b.use[id] = u
}

// List is every rule with its sentence and use (home written as ~).
func (b *Book) List(home string) socketproto.Rules {
	b.Refresh()
	out := socketproto.Rules{Revision: b.rev, Path: b.path, Rules: []socketproto.ListedRule{}, Problem: b.problem}
	for _, r := range b.rules {
		out.Rules = append(out.Rules, socketproto.ListedRule{Rule: r, Sentence: Sentence(r, home), RuleUse: b.use[r.ID]})
	}
	return out
}

// Rule is rule id, or nil.
func (b *Book) Rule(id int) *socketproto.Rule {
	i := slices.IndexFunc(b.rules, func(r socketproto.Rule) bool { return r.ID == id })
	if i < 0 {
		return nil
	}
	return &b.rules[i]
}
