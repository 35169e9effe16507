package grpcwire

import (
	"testing"

	"google.golang.org/grpc/codes"
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
