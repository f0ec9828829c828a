package runtime

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
)

// TestMain sets the git identity and config every test's git runs with,
// once.
func TestMain(m *testing.M) { testrepo.Main(m) }
