package proc

import (
	"slices"
	"testing"
)

func TestMergeEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, set, drop []string
		want            []string
	}{
		{nil, nil, nil, []string{}},
		{[]string{"A=1", "A=2"}, nil, nil, []string{"A=2"}},
		{[]string{"A=1", "B=2"}, []string{"A=3"}, nil, []string{"A=3", "B=2"}},
		{[]string{"A=1", "B=2"}, nil, []string{"A"}, []string{"B=2"}},
		{[]string{"=x", "C"}, []string{"D=a=b"}, nil, []string{"D=a=b"}},
		{[]string{"A=1"}, []string{"A=2"}, []string{"A"}, []string{"A=2"}},
	}
	for _, tt := range tests {
		if got := MergeEnv(tt.base, tt.set, tt.drop); !slices.Equal(got, tt.want) {
			t.Errorf("MergeEnv(%q, %q, %q) = %q; want %q", tt.base, tt.set, tt.drop, got, tt.want)
		}
	}
}
