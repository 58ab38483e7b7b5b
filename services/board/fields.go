package board

import (
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/domainerr"
)

// taskFields are the fields of Task by their names in the schema, e.g.
// "flag_reason", which is what tasks_list's `fields` takes.
var taskFields = (&taskwirev1.Task{}).ProtoReflect().Descriptor().Fields()

// checkFields returns the set of Task fields to keep in each listed task,
// or nil for all of them. ref is always kept, and note_truncated with note,
// so that a shortened note is never taken for a whole one.
func checkFields(names []string) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	keep := map[string]bool{"ref": true}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if taskFields.ByName(protoreflect.Name(name)) == nil {
			return nil, domainerr.New(domainerr.Invalid, "fields: %q is not a field of a task: use any of %s", name, fieldNames())
		}
		keep[name] = true
	}
	if keep["note"] {
		keep["note_truncated"] = true
	}
	return keep, nil
}

// fieldNames lists the names checkFields accepts, in schema order.
func fieldNames() string {
	names := make([]string, taskFields.Len())
	for i := range names {
		names[i] = string(taskFields.Get(i).Name())
	}
	return strings.Join(names, ", ")
}

// trimFields clears the fields of p that keep does not hold; a nil keep
// keeps them all.
func trimFields(p *taskwirev1.Task, keep map[string]bool) {
	if keep == nil {
		return
	}
	m := p.ProtoReflect()
	for i := range taskFields.Len() {
		if fd := taskFields.Get(i); !keep[string(fd.Name())] {
			m.Clear(fd)
		}
	}
}
