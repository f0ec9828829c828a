package ir

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Issue is the issue a run works on, as given on the command line: a number,
// or an issue URL (https://HOST/OWNER/REPO/issues/N).
type Issue struct {
	Number int
	// URL, Owner and Repo are set when the issue was given as a URL.
	URL   string
	Owner string
	Repo  string
}

// String is the issue as the user wrote it, normalised.
func (i *Issue) String() string {
	if i.URL != "" {
		return i.URL
	}
	return strconv.Itoa(i.Number)
}

// ParseIssue shape-checks an issue argument: a positive number, "#N", or an
// http(s) URL whose path is /OWNER/REPO/issues/N.
func ParseIssue(s string) (*Issue, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "#")
	if n, err := strconv.Atoi(t); err == nil {
		if n <= 0 {
			return nil, fmt.Errorf("issue %q: an issue number is positive", s)
		}
		return &Issue{Number: n}, nil
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("issue %q: expected an issue number or an issue URL such as https://github.com/OWNER/REPO/issues/42", s)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || parts[2] != "issues" {
		return nil, fmt.Errorf("issue %q: expected an issue URL such as https://%s/OWNER/REPO/issues/42", s, u.Host)
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("issue %q: %q is not an issue number", s, parts[3])
	}
	return &Issue{Number: n, URL: fmt.Sprintf("%s://%s/%s/%s/issues/%d", u.Scheme, u.Host, parts[0], parts[1], n), Owner: parts[0], Repo: parts[1]}, nil
}
