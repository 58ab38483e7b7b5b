package decisions

import (
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	taskwirev1 "github.com/taskwire/taskwire/api/taskwire/v1"
	"github.com/taskwire/taskwire/internal/methods"
)

// toolRules maps each tool's name to its rule, read once from the
// contract: a decision names its tool, and who may decide it depends on
// what the tool needs.
var toolRules = sync.OnceValue(func() map[string]methods.Rule {
	out := map[string]methods.Rule{}
	for _, name := range taskwirev1.ToolServices {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			continue
		}
		sd, ok := d.(protoreflect.ServiceDescriptor)
		if !ok {
			continue
		}
		for i := range sd.Methods().Len() {
			r, err := methods.Lookup("/" + name + "/" + string(sd.Methods().Get(i).Name()))
			if err == nil && r.IsTool {
				out[r.Name] = r
			}
		}
	}
	return out
})

// toolRule returns the rule of the tool named name.
func toolRule(name string) (methods.Rule, bool) {
	r, ok := toolRules()[name]
	return r, ok
}
