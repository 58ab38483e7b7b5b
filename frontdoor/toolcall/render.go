package toolcall

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/frontdoor/catalog"
)

// render is the text a tool result carries beside its structuredContent,
// for clients and models that read only text. Writes get a one-line
// summary; everything else gets structured, the structuredContent itself
// as JSON, so a model reading text sees every field — above all the
// trust marks that tell instructions from text other members wrote.
func render(m proto.Message, structured []byte) string {
	switch r := m.(type) {
	case *taskwirev1.CreateTaskResponse:
		return "Created " + taskLine(r.GetTask())
	case *taskwirev1.UpdateTaskResponse:
		return "Updated " + taskLine(r.GetTask())
	case *taskwirev1.MoveTaskResponse:
		return fmt.Sprintf("Moved %s from %s to %s", r.GetTask().GetRef(), short(r.GetFromLane()), short(r.GetTask().GetLane()))
	case *taskwirev1.AddCommentResponse:
		return fmt.Sprintf("Comment #%d added to %s", r.GetComment().GetId(), r.GetComment().GetTask())
	case *taskwirev1.ImportTasksResponse:
		return importLine(r)
	}
	if structured == nil { // a tool without an outputSchema
		raw, _ := protojson.Marshal(m)
		return string(raw)
	}
	return string(structured)
}

func taskLine(t *taskwirev1.Task) string {
	s := fmt.Sprintf("%s [%s] %s (%s", t.GetRef(), short(t.GetLane()), t.GetTitle(), short(t.GetKind()))
	if t.GetSize() != taskwirev1.TaskSize_TASK_SIZE_UNSPECIFIED {
		s += ", " + short(t.GetSize())
	}
	if len(t.GetAssignees()) > 0 {
		s += ", assigned to " + strings.Join(t.GetAssignees(), ", ")
	}
	return s + fmt.Sprintf(", v%d)", t.GetVersion())
}

func importLine(r *taskwirev1.ImportTasksResponse) string {
	refs := r.GetRefs()
	switch len(refs) {
	case 0:
		return "Imported no tasks."
	case 1:
		return "Imported 1 task: " + refs[0]
	}
	return fmt.Sprintf("Imported %d tasks: %s to %s", r.GetImported(), refs[0], refs[len(refs)-1])
}

// short is an enum value as the tool schemas spell it.
func short(e interface {
	Descriptor() protoreflect.EnumDescriptor
	Number() protoreflect.EnumNumber
}) string {
	v := e.Descriptor().Values().ByNumber(e.Number())
	if v == nil {
		return "?"
	}
	return catalog.EnumShortName(e.Descriptor(), v)
}
