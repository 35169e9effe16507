package target

import (
	"context"
	"net/http"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/target/model"
)

// Caller is what a middle tier of a chain of tiers does with a request
// once its own service time is over: call the next tier, with the
// tier's retries, and report whether the call succeeded. It returns
// early, false, when ctx ends.
type Caller interface {
	Call(ctx context.Context) bool
}

// relay calls the next tier for j, whose service at this middle tier has
// ended, and answers as the model says of the call's outcome
// (Model.Relayed: 200 or 503, with the faults' effects on served answers). j keeps its slot
// until the call ends. If the request's client goes away or the server
// crashes meanwhile, the call is cancelled (its context ends), j's slot
// frees at once, and nothing is answered; j counts as served after its
// client went away (wasted work), as the model counts a job that ran on.
func (x *exchange) relay(j *model.Job) {
	s := x.s
	ctx, cancel := untilCrash(x.ctx, x.crashed)
	defer cancel()
	ok := s.call.Call(ctx)
	gone := ctx.Err() != nil
	var a chaos.Answer
	s.mu.Lock()
	if gone {
		s.locked().Abandon(s.elapsed(), j)
	}
	s.releaseLocked(j)
	if !gone {
		a = s.locked().Relayed(s.elapsed(), ok)
	}
	s.mu.Unlock()
	if gone {
		panic(http.ErrAbortHandler) // the caller went away, or a crash reset it
	}
	if a.Status == http.StatusOK {
		x.answer(a, okBody)
		return
	}
	x.answer(a, nil)
}
