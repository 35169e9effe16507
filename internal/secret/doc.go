// Package secret is the one place that masks what a user's credentials
// may be in: a URL's user and password, and header values. Every output
// (the resolved scenario.yaml, summary.json, the report, the terminal,
// errors, the live page, the JUnit file) shows a URL or a header value
// through it, never as given. It imports nothing of herdbench, so any
// package may use it.
package secret
