package tests

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// metricsScrape is one scrape of a /metrics endpoint, in the Prometheus text
// format: its samples by series name.
type metricsScrape struct {
	from    string
	text    string
	samples map[string][]metricSample
}

// metricSample is one line of a scrape: its labels and value.
type metricSample struct {
	labels map[string]string
	value  float64
}

// metricLabels are the labels a test looks for; a series may have more.
type metricLabels map[string]string

// metricSampleLine and metricLabelPair read the lines of the text format
// this code serves: name{label="value",…} value.
var (
	metricSampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	metricLabelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// scrapeMetrics GETs url and parses what it serves, failing t unless it
// is a 200 in the text format.
func scrapeMetrics(t *testing.T, url string) *metricsScrape {
	t.Helper()
	text, err := getMetricsText(url)
	return parseMetrics(t, url, text, err)
}

// scrapeSettled scrapes url until settled holds of what it serves (a
// process updates its gauges after the client has its answer, so a
// scrape right after a call may still see the call), and returns that
// scrape; after ten seconds it returns the last one, for the checks that
// follow to report what was wrong.
func scrapeSettled(t *testing.T, url string, settled func(*metricsScrape) bool) *metricsScrape {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := scrapeMetrics(t, url)
		if settled(s) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// parseMetrics parses text, scraped from url with err.
func parseMetrics(t *testing.T, url, text string, err error) *metricsScrape {
	t.Helper()
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	s := &metricsScrape{from: url, text: text, samples: map[string][]metricSample{}}
	for line := range strings.Lines(text) {
		m := metricSampleLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("scrape %s: bad value in %q", url, line)
		}
		ls := map[string]string{}
		for _, p := range metricLabelPair.FindAllStringSubmatch(m[2], -1) {
			ls[p[1]] = p[2]
		}
		s.samples[m[1]] = append(s.samples[m[1]], metricSample{labels: ls, value: v})
	}
	return s
}

// get returns the body of a 200 answer to GET url.
func getMetricsText(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = &metricsStatusError{resp.StatusCode}
	}
	return string(body), err
}

type metricsStatusError struct{ code int }

func (e *metricsStatusError) Error() string { return "HTTP status " + strconv.Itoa(e.code) }

// value returns the value of the series name with (at least) want's
// labels, and whether there is one; several matching series add up.
func (s *metricsScrape) value(name string, want metricLabels) (float64, bool) {
	var sum float64
	found := false
	for _, smp := range s.samples[name] {
		if metricLabelsMatch(smp.labels, want) {
			sum += smp.value
			found = true
		}
	}
	return sum, found
}

func metricLabelsMatch(got map[string]string, want metricLabels) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// atLeast checks that the series name with want's labels exists with a
// value of at least min.
func (s *metricsScrape) atLeast(t *testing.T, name string, want metricLabels, min float64) {
	t.Helper()
	if v, ok := s.value(name, want); !ok || v < min {
		t.Errorf("%s: %s%v = %v (present %v), want at least %v", s.from, name, want, v, ok, min)
	}
}

// equals checks that the series name with want's labels has value v.
func (s *metricsScrape) equals(t *testing.T, name string, want metricLabels, v float64) {
	t.Helper()
	if got, ok := s.value(name, want); !ok || got != v {
		t.Errorf("%s: %s%v = %v (present %v), want %v", s.from, name, want, got, ok, v)
	}
}

// absent checks that no series is named name.
func (s *metricsScrape) absent(t *testing.T, name string) {
	t.Helper()
	if _, ok := s.samples[name]; ok {
		t.Errorf("%s serves %s, which this process has no business with", s.from, name)
	}
}

// leaks checks that no tenant, member or task text reached a label.
func (s *metricsScrape) leaks(t *testing.T, secrets ...string) {
	t.Helper()
	for _, secret := range secrets {
		if strings.Contains(s.text, secret) {
			t.Errorf("%s holds %q, which no label may carry", s.from, secret)
		}
	}
}

// noPublicMetrics checks that the public MCP port serves no metrics.
func noPublicMetrics(t *testing.T, base string) {
	t.Helper()
	if body, err := getMetricsText(base + "/metrics"); err == nil || strings.Contains(body, "taskwire_") {
		t.Errorf("GET %s/metrics = 200 with metrics, want the public port to serve none", base)
	}
}
