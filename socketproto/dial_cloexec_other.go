//go:build !linux && !freebsd

package socketproto

// sockCloexec is 0 where socket(2) takes no close-on-exec flag (macOS):
// socketCloexec then sets it apart.
const sockCloexec = 0
