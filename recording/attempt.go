package recording

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// AttemptHeader reads a request's attempt number from a header its client
// sends. Which header it is decides how it is read:
//
//   - grpc-previous-rpc-attempts (gRPC's retries, gRFC A6): the number of
//     attempts before this one, so the attempt is that plus 1; the header
//     is absent on a first attempt, which is attempt 1;
//   - amz-sdk-request (the AWS SDKs): "attempt=N; max=M", N from 1, M the
//     most attempts the SDK makes;
//   - any other name: the attempt number itself, 1 for the first try.
//
// Values are read strictly: a number in ASCII decimal with nothing around
// it but spaces, in range; anything else makes the number unknown, never
// guessed.
type AttemptHeader struct {
	// Name is the header's canonical name; "" reads no header.
	Name string
	kind attemptKind
}

type attemptKind uint8

const (
	plainAttempt attemptKind = iota
	grpcPrevious
	awsRequest
)

// maxAttemptNumber bounds the attempt numbers read: a larger one is not a
// client's count of its retries.
const maxAttemptNumber = 1000

// The headers with a format of their own.
const (
	GRPCHeader = "grpc-previous-rpc-attempts"
	AWSHeader  = "amz-sdk-request"
)

// ParseAttemptHeader returns the reader of attempt numbers from header
// name (any case); "" reads none.
func ParseAttemptHeader(name string) (AttemptHeader, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return AttemptHeader{}, nil
	}
	for _, c := range name {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", c) {
			return AttemptHeader{}, fmt.Errorf("--attempt-header %q is not a header name; give e.g. %s, %s or X-Retry-Attempt", name, GRPCHeader, AWSHeader)
		}
	}
	h := AttemptHeader{Name: textproto.CanonicalMIMEHeaderKey(name)}
	switch strings.ToLower(name) {
	case GRPCHeader:
		h.kind = grpcPrevious
	case AWSHeader:
		h.kind = awsRequest
	}
	return h, nil
}

// Number reads the attempt number of a request with headers hdr: n from 1,
// and max, the most attempts its client makes, when the header says it (0
// otherwise). ok is false when the number is not known: no header is
// configured, the request has none (but for gRPC's, whose absence means a
// first attempt), or its value does not parse.
func (h AttemptHeader) Number(hdr http.Header) (n, max int, ok bool) {
	if h.Name == "" {
		return 0, 0, false
	}
	vs := hdr[h.Name]
	if len(vs) > 1 {
		return 0, 0, false // two counts: neither can be trusted
	}
	if len(vs) == 0 {
		if h.kind == grpcPrevious {
			return 1, 0, true
		}
		return 0, 0, false
	}
	v := vs[0]
	switch h.kind {
	case grpcPrevious:
		prev, ok := count(v, 0)
		if !ok {
			return 0, 0, false
		}
		return prev + 1, 0, true
	case awsRequest:
		return parseAWS(v)
	}
	n, ok = count(v, 1)
	return n, 0, ok
}

// count reads a decimal number from least to maxAttemptNumber, spaces
// around it allowed.
func count(v string, least int) (int, bool) {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 4 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least || n > maxAttemptNumber {
		return 0, false
	}
	return n, true
}

// parseAWS reads "attempt=N; max=M" (either order, each once, max
// optional, N <= M).
func parseAWS(v string) (n, max int, ok bool) {
	var seenN, seenMax bool
	for rest := v; rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, ";")
		key, val, found := strings.Cut(strings.TrimSpace(part), "=")
		if !found {
			return 0, 0, false
		}
		switch strings.TrimSpace(key) {
		case "attempt":
			if seenN {
				return 0, 0, false
			}
			n, seenN = 0, true
			if n, ok = count(val, 1); !ok {
				return 0, 0, false
			}
		case "max":
			if seenMax {
				return 0, 0, false
			}
			seenMax = true
			if max, ok = count(val, 1); !ok {
				return 0, 0, false
			}
		default:
			// Other parameters (ttl=...) are allowed and ignored.
		}
	}
	if !seenN || (seenMax && n > max) {
		return 0, 0, false
	}
	return n, max, true
}
