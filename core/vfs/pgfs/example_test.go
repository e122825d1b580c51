package pgfs_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
)

// A workspace of a PostgreSQL database, which every process of a
// service, on any machine, opens by the same URL: the tables and the
// workspace alice (with an empty /workspace) are made by the first Open.
// The password is left out of the URL: pgx finds it in PGPASSWORD or
// ~/.pgpass, as libpq does. Open one FS per workspace and keep it: each
// has a connection pool. (Not run: it needs a server.)
func ExampleOpen() {
	ctx := context.Background()
	db, err := pgfs.Open(ctx, "postgres://agent@db.internal/agents?sslmode=verify-full&workspace=alice")
	if err != nil {
		// The server cannot be reached, a privilege the role lacks (the
		// message says which), pgfs.ErrForeign, pgfs.ErrNewerSchema.
		log.Fatal(err)
	}
	defer db.Close()
	tools, err := raw.New(vfs.New(db), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	out, err := tools.Execute(ctx, "write", []byte(`{"path":"/workspace/notes.txt","content":"kept\n"}`))
	if err != nil {
		log.Fatal(err) // an unknown tool or a cancelled context
	}
	// A failure the model sees is an output: error text, or a json
	// {"error": …}, whose Kind is OutputJSON as a result's.
	fmt.Println(out.IsError(), string(raw.Value(out)))
}

// The workspaces of a database, in byte order of their names. Removing
// one is pgfs.RemoveWorkspace. (Not run: it needs a server.)
func ExampleWorkspaces() {
	list, err := pgfs.Workspaces(context.Background(), "postgres://agent@db.internal/agents?sslmode=verify-full")
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range list {
		fmt.Printf("%s: change %d, %d nodes, %d bytes\n", w.Name, w.Rev, w.Nodes, w.Bytes)
	}
}
