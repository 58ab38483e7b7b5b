package catalog

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// comments maps a descriptor's full name to its leading comment. Enum values
// are keyed by enum name + "." + value name, since proto scopes value names
// beside their enum.
type comments map[protoreflect.FullName]string

func readComments(source []byte) (comments, error) {
	docs := comments{}
	if source == nil {
		return docs, nil
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(source, &set); err != nil {
		return nil, fmt.Errorf("catalog: source descriptor: %w", err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		// The set excludes imports; resolve them from the linked registry.
		files, err = newFilesWithImports(&set)
		if err != nil {
			return nil, fmt.Errorf("catalog: source descriptor: %w", err)
		}
	}
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		docs.addMessages(fd.SourceLocations(), fd.Messages())
		docs.addEnums(fd.SourceLocations(), fd.Enums())
		return true
	})
	return docs, nil
}

func newFilesWithImports(set *descriptorpb.FileDescriptorSet) (*protoregistry.Files, error) {
	files := new(protoregistry.Files)
	for _, fdp := range set.GetFile() {
		fd, err := protodesc.NewFile(fdp, resolver{files})
		if err != nil {
			return nil, err
		}
		if err := files.RegisterFile(fd); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// resolver finds a file first among those already read, then among those
// linked into the binary (the well-known types).
type resolver struct{ local *protoregistry.Files }

func (r resolver) FindFileByPath(p string) (protoreflect.FileDescriptor, error) {
	if fd, err := r.local.FindFileByPath(p); err == nil {
		return fd, nil
	}
	return protoregistry.GlobalFiles.FindFileByPath(p)
}

func (r resolver) FindDescriptorByName(n protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := r.local.FindDescriptorByName(n); err == nil {
		return d, nil
	}
	return protoregistry.GlobalFiles.FindDescriptorByName(n)
}

func (c comments) add(locs protoreflect.SourceLocations, key protoreflect.FullName, d protoreflect.Descriptor) {
	if text := clean(locs.ByDescriptor(d).LeadingComments); text != "" {
		c[key] = text
	}
}

func (c comments) addMessages(locs protoreflect.SourceLocations, msgs protoreflect.MessageDescriptors) {
	for i := range msgs.Len() {
		m := msgs.Get(i)
		c.add(locs, m.FullName(), m)
		fields := m.Fields()
		for j := range fields.Len() {
			c.add(locs, fields.Get(j).FullName(), fields.Get(j))
		}
		c.addMessages(locs, m.Messages())
		c.addEnums(locs, m.Enums())
	}
}

func (c comments) addEnums(locs protoreflect.SourceLocations, enums protoreflect.EnumDescriptors) {
	for i := range enums.Len() {
		e := enums.Get(i)
		c.add(locs, e.FullName(), e)
		values := e.Values()
		for j := range values.Len() {
			v := values.Get(j)
			c.add(locs, e.FullName().Append(v.Name()), v)
		}
	}
}

// clean joins a comment's lines into one paragraph.
func clean(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
