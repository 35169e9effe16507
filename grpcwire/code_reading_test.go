package grpcwire_test

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

	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/internal/grpcraw"
	"github.com/herdbench/herdbench/internal/memnet"
)

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
			grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})), grpc.WithDisableRetry())
		if err != nil {
			t.Fatal(err)
		}
		for st := 200; st < 600; st++ {
			want, own := grpcGoReads[st]
			if !own {
				want = grpcwire.Code(st)
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
