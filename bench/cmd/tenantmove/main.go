// Command tenantmove measures taskwire export and taskwire import on a
// large tenant: it seeds one (100,000 tasks, 200,000 comments and their
// history by default) straight into a SQLite database with ent bulk
// inserts, then runs the taskwire binary to export it, import the archive
// into a new database, and (with --postgres) into PostgreSQL and back,
// and prints each step's time and the process's peak resident memory
// (sampled from /proc while it runs).
// It fails if an import does not hold every record.
//
//	go run ./bench/cmd/tenantmove --taskwire bin/taskwire [--tasks 100000] [--comments 200000]
//	                              [--postgres URL] [--dir DIR]
//
// bench/tenantmove builds the binary and runs it; see bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
)

func main() {
	bin := flag.String("taskwire", "", "the taskwire binary to measure (required)")
	tasks := flag.Int("tasks", 100_000, "tasks to seed")
	comments := flag.Int("comments", 200_000, "comments to seed, spread over the tasks")
	postgres := flag.String("postgres", "", "also import into this PostgreSQL database, which must be empty, and export from it")
	dir := flag.String("dir", "", "where the databases and archives go (default: a new temporary directory, removed at the end)")
	flag.Parse()
	if *bin == "" {
		log.Fatal("name the binary: --taskwire PATH")
	}
	work := *dir
	if work == "" {
		tmp, err := os.MkdirTemp("", "tenantmove")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	if err := run(context.Background(), *bin, work, *tasks, *comments, *postgres); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, bin, dir string, tasks, comments int, postgres string) error {
	src := "sqlite:" + filepath.Join(dir, "source", "taskwire.db")
	seeded, err := seed(ctx, src, tasks, comments)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Printf("Seeded tenant %s in %s: %d tasks, %d comments, %d history entries.\n\n",
		slug, seeded.took.Round(1e6), seeded.tasks, seeded.comments, seeded.activity)
	m := mover{bin: bin, dir: dir, want: seeded}
	steps := []step{
		m.export("export", "SQLite", src, "sqlite.zip"),
		m.importInto("import", "SQLite", "sqlite:"+filepath.Join(dir, "copy", "taskwire.db"), "sqlite.zip"),
	}
	if postgres != "" {
		steps = append(steps,
			m.importInto("import", "PostgreSQL", postgres, "sqlite.zip"),
			m.export("export", "PostgreSQL", postgres, "postgres.zip"),
			m.importInto("import (back)", "SQLite", "sqlite:"+filepath.Join(dir, "back", "taskwire.db"), "postgres.zip"))
	}
	fmt.Println("| step | database | time | peak RSS MB | of it, the process's own (RssAnon) MB | archive MB |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, s := range steps {
		r, err := s()
		if err != nil {
			return err
		}
		size := "-"
		if r.archiveMB > 0 {
			size = fmt.Sprintf("%.1f", r.archiveMB)
		}
		fmt.Printf("| %s | %s | %.1f s | %.0f | %.0f | %s |\n", r.name, r.db, r.took.Seconds(), r.peakMB, r.anonMB, size)
	}
	return nil
}
