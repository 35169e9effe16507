package libraries

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithymiddle "github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/herdbench/herdbench/herdtest"
)

// AWSStandard is the AWS SDK for Go v2's standard retryer,
// retry.NewStandard() with its defaults (aws/retry/standard.go, v1.48.0:
// 3 attempts; a delay of U(0, 1) × min(50 ms × 2^i, 20 s) before retry
// i + 1; a retry quota of 500 tokens, 14 a retry, 5 after a throttling
// error, a successful retry refunding its cost and a first-attempt
// success adding 1), one retryer per client, as one per process (an
// aws.Config's).
//
// It runs in the SDK's own retry middleware (retry.NewAttemptMiddleware,
// aws/retry/middleware.go), which asks the retryer for its attempt and
// retry tokens, IsErrorRetryable and RetryDelay and releases the tokens as
// every SDK operation does; below it, smithy-go's ClientHandler sends the
// attempt (a connection error becomes its RequestSendError) and an answer
// other than a 2xx becomes the error the SDK's deserializers give one
// with no error code: an awshttp.ResponseError around a
// smithyhttp.ResponseError (whose HTTPStatusCode the retryer reads: 500,
// 502, 503 and 504 are retried, a 429 as a throttling error) around a
// smithy.GenericAPIError "UnknownError". The HTTP client is the one
// herdtest hands over with the attempt timeout (what
// awshttp.NewBuildableClient().WithTimeout sets).
func AWSStandard(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return awsCohort(timeout, func() aws.Retryer { return retry.NewStandard() })
}

// AWSAdaptive is retry.NewAdaptiveMode() with its defaults
// (aws/retry/adaptive.go, v1.48.0): the standard retryer, and before
// every attempt a client-side token bucket whose send rate a CUBIC
// controller lowers on a throttling error (a 429 here) and raises
// otherwise.
func AWSAdaptive(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return awsCohort(timeout, func() aws.Retryer { return retry.NewAdaptiveMode() })
}

func awsCohort(timeout time.Duration, newRetryer func() aws.Retryer) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		mw := retry.NewAttemptMiddleware(newRetryer(), smithyhttp.RequestCloner)
		send := smithyhttp.NewClientHandlerWithOptions(withTimeout(c.HTTP, timeout))
		next := smithymiddle.FinalizeHandlerFunc(func(ctx context.Context, in smithymiddle.FinalizeInput) (smithymiddle.FinalizeOutput, smithymiddle.Metadata, error) {
			out, md, err := send.Handle(ctx, in.Request)
			if err != nil {
				return smithymiddle.FinalizeOutput{}, md, err
			}
			resp := out.(*smithyhttp.Response)
			if err := drain(resp.Response); err != nil {
				return smithymiddle.FinalizeOutput{}, md, &smithyhttp.RequestSendError{Err: err}
			}
			if resp.StatusCode < 200 || resp.StatusCode >= 300 {
				return smithymiddle.FinalizeOutput{}, md, &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
					Response: resp,
					Err:      &smithy.GenericAPIError{Code: "UnknownError", Message: http.StatusText(resp.StatusCode)},
				}}
			}
			return smithymiddle.FinalizeOutput{Result: resp}, md, nil
		})
		return func(ctx context.Context) error {
			req := smithyhttp.NewStackRequest().(*smithyhttp.Request)
			req.Method = http.MethodPost
			u, err := req.URL.Parse(c.URL + "orders")
			if err != nil {
				return fmt.Errorf("the target's URL: %w", err)
			}
			req.URL = u
			_, _, err = mw.HandleFinalize(ctx, smithymiddle.FinalizeInput{Request: req}, next)
			return err
		}
	}
}
