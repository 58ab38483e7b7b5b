package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// listenCmd holds many idle subscriptions/listen streams open on one front
// door and reports its resident memory per stream.
func listenCmd(args []string) error {
	var c common
	fs := flag.NewFlagSet("listen", flag.ExitOnError)
	c.register(fs)
	streams := fs.Int("streams", 1000, "streams to hold open")
	settle := fs.Duration("settle", 2*time.Second, "wait this long with all streams open before reading memory")
	fs.Parse(args)
	pids, err := parsePIDs(c.pids)
	if err != nil {
		return err
	}
	cl := newClient(c.url, c.token, 0)
	cl.http.Transport.(*http.Transport).MaxIdleConnsPerHost = -1
	before, err := sampleProcs(pids)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	acked := make(chan error, *streams)
	var wg sync.WaitGroup
	start := time.Now()
	opening := make(chan struct{}, 64) // at most 64 handshakes at once
	for i := range *streams {
		wg.Go(func() {
			opening <- struct{}{}
			cl.hold(ctx, int64(i+1), acked, opening)
		})
	}
	r := Record{Round: c.round, Scenario: c.scenario, Setup: c.setup, Tool: "subscriptions/listen", Streams: *streams}
	var lat []time.Duration
	for range *streams {
		if err := <-acked; err != nil {
			r.Errors++
			if r.FirstError == "" {
				r.FirstError = err.Error()
			}
		}
		lat = append(lat, time.Since(start))
	}
	time.Sleep(*settle)
	after, err := sampleProcs(pids)
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}
	r.Requests = len(lat)
	r.Seconds = time.Since(start).Seconds()
	r.PeakRSSMB = float64(after.peakKB) / 1024
	r.RSSMB = float64(after.rssKB) / 1024
	r.RSSDeltaMB = float64(after.rssKB-before.rssKB) / 1024
	if open := *streams - r.Errors; open > 0 {
		r.PerStreamKB = float64(after.rssKB-before.rssKB) / float64(open)
	}
	return write(c.out, r)
}

// hold opens one listen stream, reports when its acknowledgement arrives,
// then keeps it open until ctx ends.
func (c *client) hold(ctx context.Context, id int64, acked chan<- error, opening <-chan struct{}) {
	released := false
	release := func() {
		if !released {
			released = true
			<-opening
		}
	}
	defer release()
	b, _ := body(id, "subscriptions/listen", "", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, "")
	req, err := c.request(ctx, "subscriptions/listen", "", b)
	if err != nil {
		acked <- err
		return
	}
	resp, err := c.http.Do(req)
	if err != nil {
		acked <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		acked <- readHTTPError(resp)
		return
	}
	sent := false
	err = readSSE(resp.Body, func(data []byte) (bool, error) {
		if sent {
			return false, nil
		}
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			return false, err
		}
		if m.Method != "notifications/subscriptions/acknowledged" {
			return false, fmt.Errorf("first message is %q, want the acknowledgement", m.Method)
		}
		acked <- nil
		sent = true
		release()
		return false, nil
	})
	if !sent {
		if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("stream ended before its acknowledgement")
		}
		acked <- err
	}
}
