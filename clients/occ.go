package clients

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
)

// attemptOCC is one attempt at a unit of work on an OCC target, as in AWS's
// experiment: read the row's version, then write it back carrying that
// version. The attempt succeeds if the write does; a write that lost the
// race answers 409 Conflict, recorded as http_4xx; a failed read ends the
// attempt with its own outcome. Both requests share the attempt's timeout.
func (s *Swarm) attemptOCC(ctx context.Context, hc *http.Client) results.Outcome {
	base := strings.TrimSuffix(s.URL, "/")
	status, body, o := post(ctx, hc, base+target.PathRead)
	if o != results.OK {
		return o
	}
	if status != http.StatusOK {
		return results.FromStatus(status)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(body)), 10, 64)
	if err != nil {
		return results.Error
	}
	status, _, o = post(ctx, hc, base+target.PathWrite+"?version="+strconv.FormatUint(v, 10))
	if o != results.OK {
		return o
	}
	return results.FromStatus(status)
}

// post sends one POST and reads the whole answer; o is the transport
// outcome (OK when an answer came, whatever its status).
func post(ctx context.Context, hc *http.Client, url string) (status int, body []byte, o results.Outcome) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, http.NoBody)
	if err != nil {
		return 0, nil, results.Error
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, Classify(err)
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, 64))
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	_ = resp.Body.Close()
	if err != nil {
		return 0, nil, Classify(err)
	}
	return resp.StatusCode, body, results.OK
}
