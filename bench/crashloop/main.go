// Command crashloop is the durability soak: the real askuserd under mixed
// load, SIGKILLed -kills times at random moments, then every acknowledgement
// it gave checked against what it holds (see askuser/tests/crashloop).
//
//	go run ./bench/crashloop -kills 1000
//	go run ./bench/crashloop -kills 200 -sync always
//	go run ./bench/crashloop -kills 200 -seed 42 -trace /tmp/crashloop.log
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"time"

	"askuser/tests/crashloop"
)

func main() { os.Exit(soak()) }

// soak runs the loop and returns the exit code: 1 when it found a problem.
// Every return path removes its temporary directory, which os.Exit would skip.
func soak() int {
	kills := flag.Int("kills", 1000, "how many times to SIGKILL the daemon")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed (printed, to repeat a run)")
	syncMode := flag.String("sync", "batch", `daemon.sync: "batch" or "always"`)
	load := flag.Duration("load", 150*time.Millisecond, "the longest a round runs before its kill")
	tracePath := flag.String("trace", "", "write the daemon's log and each start, save and kill to this file")
	flag.Parse()

	var trace io.Writer
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		trace = f
	}
	root, err := os.MkdirTemp("", "au-crash-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(root)
	bin := filepath.Join(root, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/askuserd", "./cmd/askuser-client")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fail(fmt.Errorf("building the binaries (run from the repository root): %w", err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Printf("crashloop: %d kills, sync=%s, seed %d\n", *kills, *syncMode, *seed)
	start := time.Now()
	rep, err := crashloop.Run(ctx, crashloop.Options{
		Askuserd: filepath.Join(bin, "askuserd"), Client: filepath.Join(bin, "askuser-client"),
		Root: filepath.Join(root, "r"), Kills: *kills, Seed: *seed, Sync: *syncMode, Load: *load,
		Logf:  func(format string, args ...any) { fmt.Printf("  "+format+"\n", args...) },
		Trace: trace,
	})
	if err != nil {
		return fail(err)
	}
	fmt.Printf("%s (%s)\n", rep, time.Since(start).Round(time.Second))
	for _, p := range rep.Problems {
		fmt.Println("  problem:", p)
	}
	if rep.Lost+rep.Duplicated+rep.NotGiven > 0 {
		return 1
	}
	return 0
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "crashloop:", err)
	return 1
}
