package config

import (
	"regexp"
	"testing"
)

// TestSizePattern holds the schema's pattern of min_free_memory to
// parseSize.
func TestSizePattern(t *testing.T) {
	size := regexp.MustCompile(sizePattern)
	for _, s := range []string{"2GiB", "512MiB", "1G", "100M", "4096", "2 GiB", "1kb", "1Ki", "2 parsecs", "GiB", "1.5G", "1Q"} {
		_, err := parseSize(s)
		if got := size.MatchString(s); got != (err == nil) {
			t.Errorf("size %q: pattern %v, parseSize %v", s, got, err)
		}
	}
}
