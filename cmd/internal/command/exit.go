package command

import (
	"fmt"
	"os"
	"syscall"
)

// Exit codes, the same in every program. askuser-client documents them
// (docs/contract.md §7); askuserd and askuser-mcp use the ones that apply.
const (
	ExitOK          = 0
	ExitFailed      = 1 // refused or failed; the error on stderr
	ExitUsage       = 2 // the command was called wrongly
	ExitCancelled   = 3 // the user declined to answer
	ExitUnreachable = 4 // no daemon answered, or the connection was lost
)

// SignalExit is the conventional status of a command ended by a signal:
// 130 for SIGINT (Ctrl-C).
func SignalExit(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return ExitFailed
}

// Exit ends a command that has said all it had to say (a result on stdout,
// a refusal it explained itself) with its own exit code.
type Exit int

func (e Exit) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// UsageError is a mistake in how a command was called: the runner says it
// in one line, with where help is, and exits 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef is a UsageError.
func Usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }
