package codegen

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/testrepo"
)

func TestMain(m *testing.M) { testrepo.Main(m) }
