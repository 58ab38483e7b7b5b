package taskwirev1

// ToolServices names the services whose RPCs marked as tools make up the
// board's tool catalogue, in the order tools/list shows their tools. The
// front door builds its catalogue from them, and so do the catalogue's
// tests and the tools table of docs/tools.md, so all three describe the same
// tools. Clone it before appending.
var ToolServices = []string{
	BoardService_ServiceDesc.ServiceName,
	WorkService_ServiceDesc.ServiceName,
	AccessService_ServiceDesc.ServiceName,
	AuditService_ServiceDesc.ServiceName,
}
