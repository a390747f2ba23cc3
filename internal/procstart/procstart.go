// Package procstart tells a process's start time, so that a pid read from a
// file is known to name the same process and not a later one that reused
// the number.
package procstart

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrUnknown is returned where the platform does not say when a process
// started; callers then rely on the pid alone.
var ErrUnknown = errors.New("the process start time is not known on this platform")

// Of returns an opaque, decimal token of when process pid started: equal
// for the same process, different for another process with the same pid.
// On Linux it is the starttime field of /proc/<pid>/stat (clock ticks since
// boot).
func Of(pid int) (string, error) {
	if pid <= 0 {
		return "", fmt.Errorf("pid %d is not a process id", pid)
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		if _, statErr := os.Stat("/proc/self/stat"); statErr != nil {
			return "", ErrUnknown
		}
		return "", fmt.Errorf("no process %d: %w", pid, os.ErrNotExist)
	}
	if err != nil {
		return "", err
	}
	return parseStat(string(stat))
}

// parseStat reads field 22 of a /proc/<pid>/stat line. The command name
// (field 2) is in parentheses and may hold spaces and parentheses, so the
// fields are counted from the last ")".
func parseStat(stat string) (string, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return "", errors.New("malformed /proc stat: no command name")
	}
	fields := strings.Fields(stat[end+1:])
	// fields[0] is field 3 (state); starttime is field 22.
	const starttime = 22 - 3
	if len(fields) <= starttime {
		return "", errors.New("malformed /proc stat: too few fields")
	}
	if _, err := strconv.ParseUint(fields[starttime], 10, 64); err != nil {
		return "", fmt.Errorf("malformed /proc stat: starttime %q", fields[starttime])
	}
	return fields[starttime], nil
}

// Exited reports whether pid is a zombie: it has exited and its parent has
// not reaped it yet, so it still answers signal 0 but runs no more.
func Exited(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return false
	}
	fields := strings.Fields(s[end+1:])
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}
