package socketproto

import "golang.org/x/sys/unix"

// sockCloexec is socket(2)'s close-on-exec flag.
const sockCloexec = unix.SOCK_CLOEXEC
