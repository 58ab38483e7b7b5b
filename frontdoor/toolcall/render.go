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

// importLine says what an import created and which drafts it skipped as
// likely duplicates, since a model reading only text must learn both.
func importLine(r *taskwirev1.ImportTasksResponse) string {
	var s string
	switch refs := r.GetRefs(); len(refs) {
	case 0:
		s = "Imported no tasks"
	case 1:
		s = "Imported 1 task: " + refs[0]
	default:
		s = fmt.Sprintf("Imported %d tasks: %s to %s", r.GetImported(), refs[0], refs[len(refs)-1])
	}
	skipped := r.GetSkipped()
	switch {
	case len(skipped) == 0 && len(r.GetRefs()) == 0:
		return s + "."
	case len(skipped) == 0:
		return s
	}
	parts := make([]string, len(skipped))
	for i, d := range skipped {
		parts[i] = fmt.Sprintf("tasks[%d] %q repeats %s %q", d.GetIndex(), d.GetTitle(), d.GetDuplicateOf(), d.GetDuplicateTitle())
	}
	return fmt.Sprintf("%s. Skipped %d drafts that likely repeat a task (call again with only those drafts and allow_duplicate: true if they really are different): %s.",
		s, len(skipped), strings.Join(parts, "; "))
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
