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
	"syscall"
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
	peakMB    float64 // maximum RSS, mapped database pages included
	anonMB    float64 // peak RssAnon, sampled: the process's own memory
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

// measure runs the binary with args, and reads its peak resident memory
// from the kernel's accounting of the finished child (ru_maxrss, in KB
// on Linux). That counts the pages of the SQLite file the process read
// through its memory map (store's mmap_size) too, so the peak of its own
// memory (RssAnon: heap and stacks) is sampled apart while it runs.
func (m mover) measure(name, db string, args ...string) (result, error) {
	cmd := exec.Command(m.bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	done := make(chan struct{})
	anon := make(chan int64)
	go func() { anon <- peakAnon(cmd.Process.Pid, done) }()
	err := cmd.Wait()
	took := time.Since(start)
	close(done)
	peakAnonKB := <-anon
	if err != nil {
		return result{}, fmt.Errorf("taskwire %s: %v\n%s", args[0], err, out.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return result{}, fmt.Errorf("no resource usage of taskwire %s on this system", args[0])
	}
	return result{name: name, db: db, took: took, peakMB: float64(ru.Maxrss) / 1024, anonMB: float64(peakAnonKB) / 1024}, nil
}

// peakAnon samples RssAnon of the process pid every 20 ms until done and
// returns the highest, in KB.
func peakAnon(pid int, done <-chan struct{}) int64 {
	var peak int64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			for _, line := range strings.Split(string(status), "\n") {
				if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
					peak = max(peak, kb)
				}
			}
		}
		select {
		case <-done:
			return peak
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
