// Command pgserver starts and stops the PostgreSQL server .ci/run gives
// the tests (package pgtest says how).
//
//	pgserver start [-durable] DIR   # a new cluster in DIR, started; prints its URL
//	                                # (-durable keeps fsync and synchronous commit on: for benchmarks)
//	pgserver stop DIR    # stops it and removes DIR
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/agenttools/agenttools/internal/pgtest"
)

func main() {
	args := os.Args[1:]
	durable := len(args) == 3 && args[0] == "start" && args[1] == "-durable"
	if durable {
		args = []string{"start", args[2]}
	}
	if len(args) != 2 || (args[0] != "start" && args[0] != "stop") {
		fmt.Fprintln(os.Stderr, "usage: pgserver start [-durable] DIR | pgserver stop DIR")
		os.Exit(2)
	}
	if err := run(args[0], args[1], durable); err != nil {
		fmt.Fprintln(os.Stderr, "pgserver:", err)
		os.Exit(1)
	}
}

func run(verb, dir string, durable bool) error {
	if verb == "stop" {
		return pgtest.Attach(dir).Stop()
	}
	s, err := pgtest.Start(context.Background(), dir, pgtest.StartOptions{Durable: durable})
	if err != nil {
		return err
	}
	fmt.Println(s.URL)
	return nil
}
