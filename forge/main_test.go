package forge

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
)

// TestMain sets the git identity and config every test's git runs with,
// once, so that the tests may run in parallel.
func TestMain(m *testing.M) { testrepo.Main(m) }
