// Package fakemilvus is an in-process stand-in for the Milvus gRPC service, for
// tests of the Milvus adapter on machines where Milvus cannot run. It serves the
// RPCs the Go client v2 sends for collection set-up, upsert, delete and search (see
// Implemented), keeps collections in memory, evaluates the boolean filter
// expressions the adapter emits, and searches by brute force with COSINE.
//
// It records every request (method, a copy of the message, the metadata) so tests
// can assert request shapes, and can be told to fail a method with a Milvus error
// status or a gRPC error, or to hang until the caller gives up.
//
// It mirrors the Milvus behaviours the adapter relies on: partition-key collections
// refuse explicit partition names, upsert refuses duplicate primary keys in one
// batch, VarChar values longer than max_length and vectors of the wrong dimension
// are refused, search needs a loaded collection with an index of the same metric,
// topk is at most 16384, and unknown fields in a filter are errors. It is not
// Milvus: no segments, no consistency levels (every read sees every write), no
// dynamic fields, no templates, and only the expression subset described in expr.go.
package fakemilvus

import (
	"context"
	"net"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Implemented lists the MilvusService methods the fake answers; every other method
// returns codes.Unimplemented.
var Implemented = []string{
	"Connect", "CreateCollection", "DescribeCollection", "HasCollection", "ShowCollections",
	"DropCollection", "CreateIndex", "DescribeIndex", "LoadCollection", "ReleaseCollection",
	"GetLoadingProgress", "GetLoadState", "Upsert", "Delete", "Search",
}

// Request is one recorded call.
type Request struct {
	Method   string        // e.g. "Search"
	Message  proto.Message // a copy of the request message
	Metadata metadata.MD   // incoming gRPC metadata (authorization, dbname, …)
}

// Fault makes a method misbehave. Exactly one of Status, Code or Hang is used.
type Fault struct {
	// Status is returned as the method's Milvus status (a server-side error).
	Status *commonpb.Status
	// Code is returned as a gRPC error with this code and Message.
	Code    codes.Code
	Message string
	// Hang blocks the call until the client gives up or the server stops.
	Hang bool
	// Times limits the fault to the next n calls; 0 means every call.
	Times int
}

// Server is the fake. The zero value is not usable; use New or Start.
type Server struct {
	milvuspb.UnimplementedMilvusServiceServer

	mu          sync.Mutex
	collections map[string]*collection
	nextID      int64
	requests    []Request
	faults      map[string]*Fault

	grpc    *grpc.Server
	lis     net.Listener
	stopped chan struct{}
	stop    sync.Once
}

// New returns a fake that is not listening yet.
func New() *Server {
	return &Server{
		collections: make(map[string]*collection),
		nextID:      449000000000000000,
		faults:      make(map[string]*Fault),
		stopped:     make(chan struct{}),
	}
}

// Start runs a new fake on a loopback port and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := New()
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatalf("fakemilvus: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Listen starts serving on addr ("127.0.0.1:0" picks a free port).
func (s *Server) Listen(addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.lis = lis
	s.grpc = grpc.NewServer(
		grpc.UnaryInterceptor(s.intercept),
		// The Go client pings every 5 s even when idle, as a real Milvus allows.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: time.Second, PermitWithoutStream: true}),
	)
	milvuspb.RegisterMilvusServiceServer(s.grpc, s)
	go func() { _ = s.grpc.Serve(lis) }()
	return nil
}

// Addr is the host:port the fake listens on.
func (s *Server) Addr() string { return s.lis.Addr().String() }

// Stop ends every call, hanging ones included, and closes the listener.
func (s *Server) Stop() {
	s.stop.Do(func() {
		close(s.stopped)
		if s.grpc != nil {
			s.grpc.Stop()
		}
	})
}

// Fail installs a fault for a method ("Search", "Upsert", … or "*" for all).
func (s *Server) Fail(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[method] = &f
}

// Heal removes every fault.
func (s *Server) Heal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
}

// Requests returns the recorded calls of method, or of all methods when method is "".
func (s *Server) Requests(method string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if method == "" || r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Last returns the last recorded request message of method, or nil.
func (s *Server) Last(method string) proto.Message {
	reqs := s.Requests(method)
	if len(reqs) == 0 {
		return nil
	}
	return reqs[len(reqs)-1].Message
}

// ResetRequests forgets the recorded calls.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// Collections returns the names of the stored collections, sorted.
func (s *Server) Collections() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.collections))
	for name := range s.collections {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// RowCount is the number of rows in a collection (0 when it does not exist).
func (s *Server) RowCount(collection string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.collections[collection]; c != nil {
		return len(c.rows)
	}
	return 0
}

// Rows returns a copy of every entity of a collection, field name → value (string,
// int64, or []float32 for vectors), for tests that check what an index holds.
func (s *Server) Rows(collection string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[collection]
	if c == nil {
		return nil
	}
	out := make([]map[string]any, 0, len(c.rows))
	for _, r := range c.rows {
		cp := make(map[string]any, len(r))
		for k, v := range r {
			if vec, ok := v.([]float32); ok {
				v = append([]float32(nil), vec...)
			}
			cp[k] = v
		}
		out = append(out, cp)
	}
	return out
}

func (s *Server) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	method := path.Base(info.FullMethod)
	md, _ := metadata.FromIncomingContext(ctx)

	s.mu.Lock()
	if m, ok := req.(proto.Message); ok {
		s.requests = append(s.requests, Request{Method: method, Message: proto.Clone(m), Metadata: md.Copy()})
	}
	fault := s.takeFaultLocked(method)
	s.mu.Unlock()

	if fault != nil {
		switch {
		case fault.Hang:
			select {
			case <-ctx.Done():
				return nil, status.FromContextError(ctx.Err()).Err()
			case <-s.stopped:
				return nil, status.Error(codes.Unavailable, "fakemilvus: stopped")
			}
		case fault.Status != nil:
			return failedResponse(method, fault.Status)
		default:
			return nil, status.Error(fault.Code, fault.Message)
		}
	}
	return handler(ctx, req)
}

func (s *Server) takeFaultLocked(method string) *Fault {
	for _, key := range []string{method, "*"} {
		f := s.faults[key]
		if f == nil {
			continue
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				delete(s.faults, key)
			}
		}
		copied := *f
		return &copied
	}
	return nil
}

// failedResponse builds the method's response type carrying st.
func failedResponse(method string, st *commonpb.Status) (any, error) {
	switch method {
	case "Connect":
		return &milvuspb.ConnectResponse{Status: st}, nil
	case "DescribeCollection":
		return &milvuspb.DescribeCollectionResponse{Status: st}, nil
	case "HasCollection":
		return &milvuspb.BoolResponse{Status: st}, nil
	case "ShowCollections":
		return &milvuspb.ShowCollectionsResponse{Status: st}, nil
	case "DescribeIndex":
		return &milvuspb.DescribeIndexResponse{Status: st}, nil
	case "GetLoadingProgress":
		return &milvuspb.GetLoadingProgressResponse{Status: st}, nil
	case "GetLoadState":
		return &milvuspb.GetLoadStateResponse{Status: st}, nil
	case "Upsert", "Delete":
		return &milvuspb.MutationResult{Status: st}, nil
	case "Search":
		return &milvuspb.SearchResults{Status: st}, nil
	default:
		return st, nil
	}
}
