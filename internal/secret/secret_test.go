package secret

import (
	"net/url"
	"strings"
	"testing"
)

func TestURLMasksTheUserInformationOnly(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{"http://alice:s3cret@127.0.0.1:8080/api", "http://alice:xxxxx@127.0.0.1:8080/api"},
		{"https://ghp_token@example.com/", "https://xxxxx@example.com/"},
		{"http://127.0.0.1:8080/a@b", "http://127.0.0.1:8080/a@b"},
		{"http://127.0.0.1:8080/?u=a@b", "http://127.0.0.1:8080/?u=a@b"},
		{"http://a:b@c@127.0.0.1/", "http://a:xxxxx@127.0.0.1/"},
		{"alice:s3cret@127.0.0.1:8080", "alice:xxxxx@127.0.0.1:8080"},
		{"http://alice:s3 cret@127.0.0.1/", "http://alice:xxxxx@127.0.0.1/"},
		{"http://alice:s%zzcret@[::1/", "http://alice:xxxxx@[::1/"},
		{"", ""},
		{`http:\\alice:s3cret@127.0.0.1\`, `http:\\alice:xxxxx@127.0.0.1\`},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/"},
	} {
		if got := URL(c.raw); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.raw, got, c.want)
		}
		if HasUser(c.raw) != (c.raw != c.want) {
			t.Errorf("HasUser(%q) = %v", c.raw, HasUser(c.raw))
		}
	}
}

func TestMaskedKnowsItsOwnMask(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://alice:xxxxx@127.0.0.1/": true,
		"http://xxxxx@127.0.0.1/":       true,
		"http://alice:other@127.0.0.1/": false,
		"http://127.0.0.1/xxxxx@":       false,
	} {
		if Masked(raw) != want {
			t.Errorf("Masked(%q) = %v, want %v", raw, !want, want)
		}
	}
}

func TestHeaderShowsOnlyTheRequestsForm(t *testing.T) {
	for name, shown := range map[string]bool{
		"content-type": true, "Accept": true, "Idempotency-Key": true, "User-Agent": true,
		"Authorization": false, "X-Api-Key": false, "Cookie": false, "X-Cohort": false,
	} {
		if got := Header(name, "v") == "v"; got != shown {
			t.Errorf("Header(%q) shown = %v, want %v", name, got, shown)
		}
	}
}

func TestCredentialHeaders(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "proxy-authorization": true, "Cookie": true, "X-Api-Key": true,
		"X-Auth-Token": true, "X-Session-Id": true, "X-Client-Name": false, "X-Cohort": false, "User-Agent": false,
	} {
		if Credential(name) != want {
			t.Errorf("Credential(%q) = %v, want %v", name, !want, want)
		}
	}
}

func TestErrorMasksTheURLAParseErrorQuotes(t *testing.T) {
	_, err := url.Parse(strings.Join([]string{"http://alice:s3cret@127.0.0.1", "80x/"}, ":")) // an invalid port
	if err == nil || !strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("want a parse error quoting the password, got %v", err)
	}
	if got := Error(err).Error(); strings.Contains(got, "s3cret") || !strings.Contains(got, "alice:xxxxx@") {
		t.Errorf("Error(%v) = %q", err, got)
	}
}
