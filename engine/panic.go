package engine

import (
	"errors"
	"fmt"
)

// ErrInternal is matched (errors.Is) by the error of a run that a bug in
// herdbench stopped.
var ErrInternal = errors.New("internal error")

// PanicError is a panic recovered in one of a run's goroutines (a client,
// a simulator worker): the run is stopped, what it recorded is kept
// (marked partial), and Execute returns this error instead of the process
// crashing.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string { return fmt.Sprintf("internal error: panic: %v", e.Value) }

// Is makes errors.Is(err, ErrInternal) true.
func (e *PanicError) Is(target error) bool { return target == ErrInternal }
