package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/taskwire/taskwire/services/access"
)

// serveJSON answers POST /admin/v1/<Method>: the body is the request
// message in protojson (field names in lowerCamelCase or as in the
// .proto), the answer the response message in protojson, lowerCamelCase,
// with every field present. A failure is {"code": "...", "message": "..."}
// with the HTTP status of its gRPC code (httpStatus).
func (e *Edge) serveJSON(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "admin methods are called with POST")
		return
	}
	addr := e.cfg.AuthThrottle.ClientAddr(r)
	if retry, err := e.throttled(addr); err != nil {
		writeLimited(w, err, retry)
		return
	}
	p, err := e.authenticate(r.Context(), r.Header.Values("Authorization"))
	if err != nil {
		e.failed(addr, err)
		w.Header().Set("WWW-Authenticate", `Bearer realm="taskwire admin"`)
		writeStatus(w, err)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, JSONPrefix)
	m, ok := e.methods[name]
	if !ok {
		writeError(w, http.StatusNotFound, "not_found",
			fmt.Sprintf("no admin method %q: POST to %s<Method>, e.g. %sListMembers", name, JSONPrefix, JSONPrefix))
		return
	}
	in := m.in.New().Interface()
	if err := e.readJSON(w, r, m, in); err != nil {
		return
	}
	if retry, err := e.admit(p, in); err != nil {
		writeLimited(w, err, retry)
		return
	}
	if m.stream {
		e.serveFile(w, r, p, m, in)
		return
	}
	out := m.out.New().Interface()
	if err := e.invoke(r.Context(), p, m, in, out); err != nil {
		writeStatus(w, err)
		return
	}
	body, err := protojson.MarshalOptions{EmitDefaultValues: true}.Marshal(out)
	if err != nil {
		e.log.ErrorContext(r.Context(), "admin: encoding a response", "method", m.name, "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store") // responses may hold a new token
	w.Write(append(body, '\n'))
}

// readJSON decodes the body of r into in, answering the client itself
// (and returning an error) when it cannot. An empty body is an empty
// message.
func (e *Edge) readJSON(w http.ResponseWriter, r *http.Request, m method, in proto.Message) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, e.cfg.MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, "invalid_argument",
			fmt.Sprintf("the body is larger than %d bytes", e.cfg.MaxBodyBytes))
		return err
	case err != nil:
		writeError(w, http.StatusBadRequest, "invalid_argument", "the body could not be read")
		return err
	case len(strings.TrimSpace(string(body))) == 0:
		return nil
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "invalid_argument", "send the body as Content-Type: application/json")
		return errors.New("content type")
	}
	if err := protojson.Unmarshal(body, in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_argument",
			fmt.Sprintf("the body is not a %s in JSON: %v", m.inName, err))
		return err
	}
	return nil
}

// writeStatus writes the JSON error of a gRPC status. A worker (or its
// database) out of reach is 503 with Retry-After: retrying is safe.
func writeStatus(w http.ResponseWriter, err error) {
	code, name := httpStatus(err)
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeError(w, code, name, status.Convert(err).Message())
}

// writeError writes {"code": name, "message": msg} with HTTP status code.
func writeError(w http.ResponseWriter, code int, name, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{name, msg})
}

// httpStatus is the one mapping of gRPC errors to HTTP statuses and to
// the code names of JSON errors. FAILED_PRECONDITION is 409: the call
// cannot succeed as things stand (the last owner, a taken name), whoever
// makes it.
func httpStatus(err error) (int, string) {
	switch status.Code(err) {
	case codes.OK:
		return http.StatusOK, "ok"
	case codes.Canceled:
		return 499, "cancelled"
	case codes.InvalidArgument:
		return http.StatusBadRequest, "invalid_argument"
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout, "deadline_exceeded"
	case codes.NotFound:
		return http.StatusNotFound, "not_found"
	case codes.AlreadyExists:
		return http.StatusConflict, "already_exists"
	case codes.PermissionDenied:
		return http.StatusForbidden, "permission_denied"
	case codes.ResourceExhausted:
		if access.IsDiskFull(err) {
			return http.StatusInsufficientStorage, "resource_exhausted"
		}
		if access.IsQuotaExceeded(err) {
			// A tenant's quota does not refill with time as a rate
			// limit does: 409, as for any call that cannot succeed as
			// things stand, and no Retry-After.
			return http.StatusConflict, "resource_exhausted"
		}
		return http.StatusTooManyRequests, "resource_exhausted"
	case codes.FailedPrecondition:
		return http.StatusConflict, "failed_precondition"
	case codes.Aborted:
		return http.StatusConflict, "aborted"
	case codes.OutOfRange:
		return http.StatusBadRequest, "out_of_range"
	case codes.Unimplemented:
		return http.StatusNotImplemented, "unimplemented"
	case codes.Unavailable:
		return http.StatusServiceUnavailable, "unavailable"
	case codes.Unauthenticated:
		return http.StatusUnauthorized, "unauthenticated"
	}
	return http.StatusInternalServerError, "internal" // Internal, Unknown, DataLoss
}
