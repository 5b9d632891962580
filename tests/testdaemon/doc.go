// Package testdaemon is the test harness every askuser test package shares:
// a daemon to talk to (in-process through Serve, or the real askuserd binary
// through Build, StartBinary and StopBinary), a raw client that sends bytes
// as given and checks replies with Expect, typed helpers over
// socketproto.Conn (Watch, RecvType, SendOK), the process helpers that find
// and stop a daemon a client started in the background (LockHolder, Alive,
// StopAutostarted), the request lines tests send, and Missing for tests that
// need a tool this machine lacks.
//
// It knows the daemon only from outside: it does not import package daemon
// (whose own tests use it), so Serve takes the daemon's Run as a Runner;
// package inproc supplies it for everyone else.
package testdaemon
