package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/grpcraw"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
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

// grpcTargetScenario is a gRPC service with no faults, for herdbench
// target and herdbench proxy.
const grpcTargetScenario = `name: grpc-service
target: {protocol: grpc, method: /helloworld.Greeter/SayHello, concurrency: 8}
`

// TestGRPCScenarioIsServedAndProxiedOverGRPC: given a scenario whose
// target speaks gRPC, herdbench target serves gRPC (not HTTP/1.1) and
// herdbench proxy, without --protocol, proxies gRPC in front of it; a
// grpc-go call through both succeeds, and the proxy's stop line counts
// its calls by gRPC status code.
func TestGRPCScenarioIsServedAndProxiedOverGRPC(t *testing.T) {
	scenario := writeScenario(t, grpcTargetScenario)
	grpcAddrRE := regexp.MustCompile(`serving grpc://([0-9.:]+)`)
	start := func(args ...string) (*syncBuffer, chan int) {
		var stdout, stderr syncBuffer
		done := make(chan int, 1)
		go func() { done <- run(context.Background(), args, &stdout, &stderr) }()
		return &stderr, done
	}
	call := func(addr string) error {
		cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})))
		if err != nil {
			return err
		}
		defer cc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var out []byte
		return cc.Invoke(ctx, "/helloworld.Greeter/SayHello", []byte{}, &out)
	}
	targetErr, targetDone := start("target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--scenario", scenario, "--no-record", "--exit-after", "6s")
	up := targetErr.waitFor(t, grpcAddrRE)
	if err := call(up); err != nil {
		t.Fatalf("a gRPC call to herdbench target: %v\n%s", err, targetErr.String())
	}
	proxyErr, proxyDone := start("proxy", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--upstream", "http://"+up,
		"--scenario", scenario, "--no-record", "--exit-after", "3s")
	through := proxyErr.waitFor(t, grpcAddrRE)
	if err := call(through); err != nil {
		t.Errorf("a gRPC call through herdbench proxy: %v\n%s", err, proxyErr.String())
	}
	if code := <-proxyDone; code != exitOK {
		t.Errorf("proxy exit code %d\n%s", code, proxyErr.String())
	}
	if !strings.Contains(proxyErr.String(), "stopped; answered OK 1\n") || strings.Contains(proxyErr.String(), "http_5xx") {
		t.Errorf("the gRPC proxy's stop line does not count its call by gRPC code:\n%s", proxyErr.String())
	}
	// The target's own stop line speaks gRPC too; stop it early.
	select {
	case <-targetDone:
	case <-time.After(30 * time.Second):
		t.Fatal("herdbench target did not stop")
	}
	if !strings.Contains(targetErr.String(), "stopped; answered OK 2\n") {
		t.Errorf("the gRPC target's stop line:\n%s", targetErr.String())
	}
}

// downScenario is a target down for the whole run: no attempt succeeds.
const downScenario = `name: down
duration: 2s
seed: 7
target: {concurrency: 4, queue: 4, service_time: 10ms}
chaos:
  - {kind: outage, mode: "503", at: 0s, for: 2s}
workload: {kind: oneshot, clients: 4}
strategies:
  - {name: twice, backoff: constant, base: 100ms, max_attempts: 2, timeout: 1s}
`

// TestNoSuccessWarningSpeaksTheProtocol: the warning that no attempt
// succeeded speaks of HTTP statuses for an HTTP target and of gRPC's for a
// gRPC one (the plan says which; the summary does not), and a merge reads
// it from the shards' resolved scenario.
func TestNoSuccessWarningSpeaksTheProtocol(t *testing.T) {
	for _, c := range []struct {
		protocol, want string
	}{
		{"", "herdbench: warning: not one of twice's 8 attempts succeeded (most were http_5xx: 8); is the embedded target up and answering 2xx?\n"},
		{"protocol: grpc, ", "herdbench: warning: not one of twice's 8 attempts succeeded (most were http_5xx: 8, gRPC status UNAVAILABLE, INTERNAL, UNKNOWN or another failure of the server); is the embedded target up and ending calls with status OK?\n"},
	} {
		scenario := strings.Replace(downScenario, "target: {", "target: {"+c.protocol, 1)
		code, _, stderr := runCLI(t, "scenario", writeScenario(t, scenario), "--sim", "--out", t.TempDir(), "-q", "--no-png")
		if code != exitOK || !strings.Contains(stderr, c.want) {
			t.Errorf("target %q: exit %d, stderr:\n%s\nwant exit 0 and:\n%s", c.protocol, code, stderr, c.want)
		}
		if got, want := speaksGRPC([]byte(scenario)), c.protocol != ""; got != want {
			t.Errorf("target %q: speaksGRPC = %v, want %v", c.protocol, got, want)
		}
	}
	if speaksGRPC([]byte("not: [a scenario")) {
		t.Error("speaksGRPC of a file that is no scenario: true, want false")
	}
}
