package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// procSample is what /proc tells of a set of server processes at one time,
// summed over them.
type procSample struct {
	cpu    time.Duration // user + system CPU time since start
	rssKB  int64         // resident set now
	peakKB int64         // peak resident set since start (VmHWM)
}

func sampleProcs(pids []int) (procSample, error) {
	var s procSample
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return s, err
		}
		ticks, err := parseStat(string(stat))
		if err != nil {
			return s, fmt.Errorf("pid %d: %w", pid, err)
		}
		s.cpu += time.Duration(ticks) * time.Second / clockTicks
		rss, peak, err := readStatus(pid)
		if err != nil {
			return s, err
		}
		s.rssKB += rss
		s.peakKB += peak
	}
	return s, nil
}

// parseStat returns utime + stime, in clock ticks, from a /proc/<pid>/stat line.
func parseStat(line string) (int64, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat %q", line)
	}
	f := strings.Fields(line[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat %q", line)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed times in stat %q", line)
	}
	return utime + stime, nil
}

func readStatus(pid int) (rssKB, peakKB int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("pid %d %s: %w", pid, k, err)
		}
		if k == "VmRSS" {
			rssKB = n
		} else {
			peakKB = n
		}
	}
	return rssKB, peakKB, sc.Err()
}

func parsePIDs(s string) ([]int, error) {
	var pids []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("pid %q: %w", f, err)
		}
		pids = append(pids, n)
	}
	return pids, nil
}
