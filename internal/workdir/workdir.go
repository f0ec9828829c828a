// Package workdir takes the paths a user gives relative to the directory
// cairn works in: the one -C names, which cairn never makes the process's
// own working directory, or the process's own.
package workdir

import "path/filepath"

// Path is name as a path cairn can open: taken relative to dir, the
// directory cairn works in ("" for the process's working directory). An
// absolute name, or any name when dir is "", is returned as is: names keep
// the spelling the user gave them, for messages, and only the paths opened
// change with dir.
func Path(dir, name string) string {
	if dir == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// Abs is name made absolute, taken relative to dir as Path takes it.
func Abs(dir, name string) (string, error) {
	return filepath.Abs(Path(dir, name))
}
