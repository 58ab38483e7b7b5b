package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/taskwire/taskwire/internal/ent/comment"
	"github.com/taskwire/taskwire/internal/ent/task"
	"github.com/taskwire/taskwire/internal/store"
	"github.com/taskwire/taskwire/internal/tenancy"
)

// result is one measured step.
type result struct {
	name, db  string
	took      time.Duration
	peakMB    float64 // peak resident set, mapped database pages included
	anonMB    float64 // peak of the process's own memory (RssAnon)
	archiveMB float64
}

// step runs one command and measures it.
type step func() (result, error)

// mover runs the taskwire binary on the work directory's files.
type mover struct {
	bin, dir string
	want     seeded
}

func (m mover) export(name, db, dsn, file string) step {
	return func() (result, error) {
		path := filepath.Join(m.dir, file)
		r, err := m.measure(name, db, "export", "--db", dsn, "--tenant", slug, "--out", path)
		if err != nil {
			return r, err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return r, err
		}
		r.archiveMB = float64(fi.Size()) / (1 << 20)
		return r, nil
	}
}

func (m mover) importInto(name, db, dsn, file string) step {
	return func() (result, error) {
		r, err := m.measure(name, db, "import", "--db", dsn, "--from", filepath.Join(m.dir, file))
		if err != nil {
			return r, err
		}
		return r, m.check(dsn)
	}
}

// measure runs the binary with args and samples its memory while it
// runs (peak). The kernel's ru_maxrss of a child would not do: it counts
// the pages the child shared with this process between fork and exec.
func (m mover) measure(name, db string, args ...string) (result, error) {
	cmd := exec.Command(m.bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	done := make(chan struct{})
	sampled := make(chan memory)
	go func() { sampled <- peak(cmd.Process.Pid, done) }()
	err := cmd.Wait()
	took := time.Since(start)
	close(done)
	mem := <-sampled
	if err != nil {
		return result{}, fmt.Errorf("taskwire %s: %v\n%s", args[0], err, out.String())
	}
	return result{name: name, db: db, took: took, peakMB: float64(mem.hwm) / 1024, anonMB: float64(mem.anon) / 1024}, nil
}

// memory is what /proc/<pid>/status tells of a process's memory, in KB:
// its peak resident set (VmHWM), which counts the pages of the SQLite
// file read through its memory map (store's mmap_size) and of the binary,
// and its own memory (RssAnon: heap, stacks, SQLite's caches).
type memory struct{ hwm, anon int64 }

// peak samples the memory of the process pid every 10 ms until done and
// returns the highest of each; VmHWM only grows, so its last sample is
// at most 10 ms short of the end.
func peak(pid int, done <-chan struct{}) memory {
	var p memory
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			for _, line := range strings.Split(string(status), "\n") {
				name, v, _ := strings.Cut(line, ":")
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				switch name {
				case "VmHWM":
					p.hwm = max(p.hwm, kb)
				case "RssAnon":
					p.anon = max(p.anon, kb)
				}
			}
		}
		select {
		case <-done:
			return p
		case <-tick.C:
		}
	}
}

// check fails unless the database dsn holds the seeded tenant whole.
func (m mover) check(dsn string) error {
	ctx := context.Background()
	c, err := store.Open(ctx, dsn, store.Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return err
	}
	defer c.Close()
	t, ctx, err := tenancy.Tenant(ctx, c, slug)
	if err != nil {
		return err
	}
	tasks, err := c.Task.Query().Where(task.TenantID(t.ID)).Count(ctx)
	if err != nil {
		return err
	}
	comments, err := c.Comment.Query().Where(comment.TenantID(t.ID)).Count(ctx)
	if err != nil {
		return err
	}
	if tasks != m.want.tasks || comments != m.want.comments {
		return fmt.Errorf("the import into %s holds %d tasks and %d comments, want %d and %d", dsn, tasks, comments, m.want.tasks, m.want.comments)
	}
	return nil
}
