package forge

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/ghtest"
)

func TestMain(m *testing.M) { ghtest.Main(m) }
