package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestProxyProtocolUsage: --protocol takes http1, h2c, h2 or grpc, and a gRPC proxy
// refuses --retry, each with exit 2 and a message saying what to write.
func TestProxyProtocolUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"proxy", "--protocol", "h3", "--upstream", "http://127.0.0.1:9"}, `--protocol "h3": write http1 (HTTP/1.1), h2c, h2 or grpc`},
		{[]string{"proxy", "--protocol", "grpc", "--retry", "grpc", "--upstream", "http://127.0.0.1:9"}, "a gRPC proxy forwards each call once"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), exitUsage, c.want)
		}
	}
}
