package grpcwire

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/herdbench/herdbench/internal/memnet"
)

// TestCode: the table, exactly, for a status of every class and every
// status it names.
func TestCode(t *testing.T) {
	for _, c := range []struct {
		status int
		want   codes.Code
	}{
		{-1, codes.Unknown}, {0, codes.Unknown},
		{100, codes.Unknown}, {101, codes.Unknown}, {199, codes.Unknown},
		{200, codes.OK}, {201, codes.OK}, {204, codes.OK}, {299, codes.OK},
		{300, codes.Unknown}, {301, codes.Unknown}, {302, codes.Unknown}, {304, codes.Unknown}, {399, codes.Unknown},
		{400, codes.Internal}, {401, codes.Unauthenticated}, {402, codes.Unknown}, {403, codes.PermissionDenied},
		{404, codes.Unimplemented}, {405, codes.Unknown}, {408, codes.Unknown}, {409, codes.Aborted},
		{418, codes.Unknown}, {428, codes.Unknown}, {429, codes.ResourceExhausted}, {431, codes.Unknown}, {499, codes.Unknown},
		{500, codes.Internal}, {501, codes.Unknown}, {502, codes.Unavailable}, {503, codes.Unavailable},
		{504, codes.Unavailable}, {505, codes.Unknown}, {507, codes.Unknown}, {511, codes.Unknown}, {599, codes.Unknown},
		{600, codes.Unknown}, {999, codes.Unknown},
	} {
		if got := Code(c.status); got != c.want {
			t.Errorf("Code(%d) = %s; want %s", c.status, got, c.want)
		}
	}
}

// TestStatus: the table, exactly, for every code grpc-go has and one
// beyond them.
func TestStatus(t *testing.T) {
	want := map[codes.Code]int{
		codes.OK: 200, codes.Canceled: 0, codes.Unknown: 500, codes.InvalidArgument: 400,
		codes.DeadlineExceeded: 504, codes.NotFound: 400, codes.AlreadyExists: 400, codes.PermissionDenied: 400,
		codes.ResourceExhausted: 429, codes.FailedPrecondition: 400, codes.Aborted: 500, codes.OutOfRange: 400,
		codes.Unimplemented: 400, codes.Internal: 500, codes.Unavailable: 503, codes.DataLoss: 500,
		codes.Unauthenticated: 400, 17: 500,
	}
	for c := codes.Code(0); c <= 17; c++ {
		if got := Status(c); got != want[c] {
			t.Errorf("Status(%s) = %d; want %d", c, got, want[c])
		}
	}
}

// grpcGoReads is what grpc-go's client reads where Code is herdbench's own:
// an answer without a grpc-status (a 2xx of a plain HTTP/2 server is no
// gRPC answer either).
var grpcGoReads = map[int]codes.Code{409: codes.Unknown, 429: codes.Unavailable, 500: codes.Unknown}

// TestCodeIsGRPCGosReading: for every status 200..599, a grpc-go client
// that gets it from a plain HTTP/2 server (no grpc-status, as from a
// proxy) sees the code Code gives, but for the statuses the table gives a
// code of herdbench's own (2xx, 409, 429, 500), where it sees what the
// table's comment says grpc-go reads. It is grpc-go's own client that
// reads them (internal/transport's HTTPStatusConvTab), over an in-memory
// network in a synctest bubble.
func TestCodeIsGRPCGosReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		l, err := n.Listen("tcp", "plain:80")
		if err != nil {
			t.Fatal(err)
		}
		var protocols http.Protocols
		protocols.SetUnencryptedHTTP2(true)
		srv := &http.Server{Protocols: &protocols, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			st, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status.S/"))
			if err != nil {
				st = http.StatusTeapot
			}
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(st)
		})}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(l) }()
		cc, err := grpc.NewClient("passthrough:///plain:80",
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) { return n.Dial(ctx, "tcp", addr) }),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(Codec{})), grpc.WithDisableRetry())
		if err != nil {
			t.Fatal(err)
		}
		for st := 200; st < 600; st++ {
			want, own := grpcGoReads[st]
			if !own {
				want = Code(st)
			}
			if st < 300 {
				want = codes.Unknown // not a gRPC answer: the target answers a 2xx with a message and OK
			}
			var out []byte
			err := cc.Invoke(context.Background(), "/status.S/"+strconv.Itoa(st), []byte{}, &out)
			if got := status.Code(err); got != want {
				t.Errorf("an HTTP/2 answer %d without grpc-status: grpc-go reads %s (%v); want %s", st, got, err, want)
			}
		}
		if err := cc.Close(); err != nil {
			t.Error(err)
		}
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("the server: %v", err)
		}
	})
}
