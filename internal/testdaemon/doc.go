// Package testdaemon is the test harness every askuser test package shares:
// a daemon to talk to (in-process through Serve, or the real askuserd binary
// through Build and StartBinary), a raw client that sends bytes as given and
// checks replies with Expect, the process helpers that stop what a test's
// clients started in the background, and the request lines tests send.
//
// It knows the daemon only from outside: it does not import package daemon
// (whose own tests use it), so Serve takes the daemon's Run as a Runner;
// package inproc supplies it for everyone else.
package testdaemon
