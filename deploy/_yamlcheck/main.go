// Command yamlcheck checks the deployment files without a cluster or a
// Docker engine: that the chart's rendered manifests parse and hold what
// a deployment needs, and that compose.yaml parses and has its services.
// deploy/check runs it; it lives in a directory the main module's ./...
// skips, and builds with deploy/helm.mod, so its YAML library stays out of
// go.mod.
//
//	yamlcheck manifests FILE   rendered `helm template` output
//	yamlcheck compose FILE     a compose file
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: yamlcheck manifests|compose FILE")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[2])
	if err == nil {
		switch os.Args[1] {
		case "manifests":
			err = checkManifests(data)
		case "compose":
			err = checkCompose(data)
		default:
			err = fmt.Errorf("unknown check %q", os.Args[1])
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "yamlcheck %s %s:\n%v\n", os.Args[1], os.Args[2], err)
		os.Exit(1)
	}
}

// obj is one parsed YAML document, walked with get.
type obj = map[string]any

// get follows keys through nested maps, returning nil where one is missing.
func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(obj)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func list(v any) []any { l, _ := v.([]any); return l }

// documents parses every document of a multi-document stream.
func documents(data []byte) ([]obj, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []obj
	for i := 1; ; i++ {
		var d obj
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

func checkManifests(data []byte) error {
	docs, err := documents(data)
	if err != nil {
		return err
	}
	var errs []error
	kinds := map[string]int{}
	for _, d := range docs {
		kind, _ := get(d, "kind").(string)
		name, _ := get(d, "metadata", "name").(string)
		if kind == "" || name == "" || get(d, "apiVersion") == nil {
			errs = append(errs, fmt.Errorf("a document without apiVersion, kind or metadata.name: %v", d))
			continue
		}
		kinds[kind]++
		switch kind {
		case "Deployment", "Job":
			errs = append(errs, checkPod(kind+" "+name, get(d, "spec", "template", "spec"))...)
		}
	}
	for _, k := range []string{"Deployment", "Service", "Job"} {
		if kinds[k] == 0 {
			errs = append(errs, fmt.Errorf("no %s rendered", k))
		}
	}
	fmt.Printf("%d objects:", len(docs))
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range kinds {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Printf(" %s×%d", k, kinds[k])
	}
	fmt.Println()
	return errors.Join(errs...)
}

// checkPod insists on what every Taskwire pod has: a non-root user, and
// containers with a read-only root filesystem and no capabilities; and
// probes on the long-running ones.
func checkPod(what string, spec any) []error {
	var errs []error
	if get(spec, "securityContext", "runAsNonRoot") != true {
		errs = append(errs, fmt.Errorf("%s: pod securityContext.runAsNonRoot is not true", what))
	}
	long := strings.HasPrefix(what, "Deployment")
	for _, c := range append(list(get(spec, "initContainers")), list(get(spec, "containers"))...) {
		cname, _ := get(c, "name").(string)
		sc := get(c, "securityContext")
		if get(sc, "readOnlyRootFilesystem") != true || get(sc, "allowPrivilegeEscalation") != false {
			errs = append(errs, fmt.Errorf("%s container %s: want readOnlyRootFilesystem and no privilege escalation", what, cname))
		}
		if !slices.Contains(list(get(sc, "capabilities", "drop")), any("ALL")) {
			errs = append(errs, fmt.Errorf("%s container %s: capabilities.drop lacks ALL", what, cname))
		}
		if get(c, "resources", "requests") == nil {
			errs = append(errs, fmt.Errorf("%s container %s: no resource requests", what, cname))
		}
	}
	if long {
		for _, c := range list(get(spec, "containers")) {
			if get(c, "readinessProbe") == nil || get(c, "livenessProbe") == nil {
				errs = append(errs, fmt.Errorf("%s container %v: want readiness and liveness probes", what, get(c, "name")))
			}
		}
	}
	return errs
}

// composeServices are the services deploy/compose.yaml must define.
var composeServices = []string{
	"postgres", "nats", "secrets", "migrate",
	"worker-1", "worker-2", "worker-3", "frontdoor-1", "frontdoor-2", "lb",
}

func checkCompose(data []byte) error {
	var c obj
	if err := yaml.Unmarshal(data, &c); err != nil {
		return err
	}
	var errs []error
	services, _ := get(c, "services").(obj)
	for _, s := range composeServices {
		if services[s] == nil {
			errs = append(errs, fmt.Errorf("service %s is missing", s))
		}
	}
	for name, s := range services {
		for dep, cond := range toObj(get(s, "depends_on")) {
			if services[dep] == nil {
				errs = append(errs, fmt.Errorf("service %s depends on %s, which is not defined", name, dep))
			}
			if strings.HasPrefix(name, "worker-") && dep == "migrate" && get(cond, "condition") != "service_completed_successfully" {
				errs = append(errs, fmt.Errorf("service %s must wait for migrate to complete", name))
			}
		}
	}
	for _, s := range []string{"worker-1", "frontdoor-1"} {
		if get(services, s, "read_only") != true {
			errs = append(errs, fmt.Errorf("service %s: want read_only", s))
		}
	}
	secrets, _ := get(c, "secrets").(obj)
	for _, s := range []string{"signing.key", "internal.key", "operator.secret"} {
		if get(secrets, s, "file") == nil {
			errs = append(errs, fmt.Errorf("secret %s: want a file", s))
		}
	}
	fmt.Printf("compose: %d services\n", len(services))
	return errors.Join(errs...)
}

// toObj reads depends_on in either form: a list of names or a map.
func toObj(v any) obj {
	if m, ok := v.(obj); ok {
		return m
	}
	m := obj{}
	for _, n := range list(v) {
		if s, ok := n.(string); ok {
			m[s] = nil
		}
	}
	return m
}
