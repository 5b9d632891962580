// Command crashloop is the durability soak: the real askuserd under mixed
// load, SIGKILLed -kills times at random moments, then every acknowledgement
// it gave checked against what it holds (see askuser/tests/crashloop).
//
//	go run ./bench/crashloop -kills 1000
//	go run ./bench/crashloop -kills 200 -sync always
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"time"

	"askuser/tests/crashloop"
)

func main() {
	kills := flag.Int("kills", 1000, "how many times to SIGKILL the daemon")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed (printed, to repeat a run)")
	syncMode := flag.String("sync", "batch", `daemon.sync: "batch" or "always"`)
	load := flag.Duration("load", 150*time.Millisecond, "the longest a round runs before its kill")
	flag.Parse()

	root, err := os.MkdirTemp("", "au-crash-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(root)
	bin := filepath.Join(root, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/askuserd", "./cmd/askuser-client")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fail(fmt.Errorf("building the binaries (run from the repository root): %w", err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Printf("crashloop: %d kills, sync=%s, seed %d\n", *kills, *syncMode, *seed)
	start := time.Now()
	rep, err := crashloop.Run(ctx, crashloop.Options{
		Askuserd: filepath.Join(bin, "askuserd"), Client: filepath.Join(bin, "askuser-client"),
		Root: filepath.Join(root, "r"), Kills: *kills, Seed: *seed, Sync: *syncMode, Load: *load,
		Logf: func(format string, args ...any) { fmt.Printf("  "+format+"\n", args...) },
	})
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s (%s)\n", rep, time.Since(start).Round(time.Second))
	for _, p := range rep.Problems {
		fmt.Println("  problem:", p)
	}
	if rep.Lost+rep.Duplicated+rep.NotGiven > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "crashloop:", err)
	os.Exit(1)
}
