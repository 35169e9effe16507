package clients

import "time"

// Budget caps retries: the state of one retry budget, made by its kind's
// BudgetSpec (budget_*.go, one file a kind, registered in Budgets). It is
// pure: every method takes the elapsed time and none reads a clock. A
// Budget is not safe for concurrent use; a Cohort guards the one its
// clients share.
type Budget interface {
	// Started records the start of a logical request.
	Started(now time.Duration)
	// Ended records the end of a logical request, however it ended.
	Ended(now time.Duration)
	// Answered records the target's answer to an attempt. paid is what the
	// request's latest retry cost (0 if it has not retried).
	Answered(now time.Duration, ok bool, paid int)
	// Retry asks to retry after a failed or locally refused attempt;
	// timeout says the attempt timed out. It reports permission and what
	// the retry took from the budget.
	Retry(now time.Duration, timeout bool) (cost int, ok bool)
	// Released says a retry that Retry permitted has been answered, or
	// refused by a breaker or throttle.
	Released(now time.Duration)
}
